import { describe, expect, it } from "vitest";
import { describeYaml11Reading, yaml11Readings } from "../../src/catalog/index.js";

const document = (fields: string) => `---\nname: a\ndescription: Does a.\n${fields}---\n# A\n`;

/** Each reading as `key value: YAML 1.1's reading / YAML 1.2's`. */
const readings = (fields: string) =>
  yaml11Readings(document(fields)).map(
    ({ key, value, yaml11, yaml12 }) => `${key} ${value}: ${yaml11} / ${yaml12}`,
  );

// YAML 1.1 readers (PyYAML, Psych, yaml.v2) and this server's YAML 1.2 read these plain values apart, so
// hosts that parse SKILL.md themselves saw another frontmatter than the entry publishes, and nothing said so.
describe("unquoted frontmatter values a YAML 1.1 reader reads otherwise", () => {
  it("are found at any depth, in the order written, with what each YAML reads", () => {
    expect(
      readings(
        "updated: 2024-01-15\nat: 2024-01-15 10:00:00Z\nenabled: yes\nbeta: off\nduration: 1:30\n" +
          "mode: 0755\nbudget: 1_000\nmask: 0o17\nscale: 1e3\nzip: 09\nmetadata:\n  flags: [no, yes]\n",
      ),
    ).toEqual([
      "updated 2024-01-15: a date / text",
      "at 2024-01-15 10:00:00Z: a timestamp / text",
      "enabled yes: the boolean true / text",
      "beta off: the boolean false / text",
      "duration 1:30: the number 90 / text",
      "mode 0755: the number 493 / the number 755",
      "budget 1_000: the number 1000 / text",
      "mask 0o17: text / the number 15",
      "scale 1e3: text / the number 1000",
      "zip 09: text / the number 9",
      "metadata.flags[0] no: the boolean false / text",
      "metadata.flags[1] yes: the boolean true / text",
    ]);
  });

  // Regression: only values were checked, yet `on:` is the key true to PyYAML, so a host reading
  // SKILL.md with it found no "on" key, and nothing said so.
  it("take in keys too, at any depth, each before its value, but not quoted or tagged ones", () => {
    expect(
      readings(
        "on: push\nmetadata:\n  yes: 1_000\n  2024-01-15: released\n  08: eight\nmatrix: [{off: x}]\n" +
          '"no": quoted\n!!str y: tagged\nfalse: alike\n',
      ),
    ).toEqual([
      "on on: the boolean true / text",
      "metadata.yes yes: the boolean true / text",
      "metadata.yes 1_000: the number 1000 / text",
      "metadata.2024-01-15 2024-01-15: a date / text",
      "metadata.08 08: text / the number 8",
      "matrix[0].off off: the boolean false / text",
    ]);
    const [on] = yaml11Readings(document("on: push\n"));
    expect(on && describeYaml11Reading(on)).toMatch(
      /^frontmatter "on": the key on is the boolean true .*: quote it \("on"\)$/,
    );
  });

  // Regression: PyYAML refuses the whole frontmatter over a plain `=` or `<<` value, and merges a `<<` key's
  // mapping into its own, so hosts using it lost the skill or saw other keys; this server reads text.
  it("take in what PyYAML refuses or merges: a plain = or << value, a << key", () => {
    expect(readings("sep: =\nshift: <<\n<<: {extra: 1}\n=: key\nquoted: '='\n")).toEqual([
      "sep =: an error (no frontmatter at all) / text",
      "shift <<: an error (no frontmatter at all) / text",
      "<< <<: a merge (an error unless it holds a mapping) / text",
    ]);
  });

  it("leave out values both read alike, quoted or tagged ones, and a frontmatter that does not read", () => {
    expect(
      readings(
        'version: 1.2.3\nlevel: 1.5\ncount: 12\nok: true\nnothing: ~\nempty:\nnan: .NaN\nhex: 0x1F\nquoted: "yes"\n' +
          "single: '1:30'\ntagged: !!str on\nwords: Use on weekdays, no later than 1:30\n",
      ),
    ).toEqual([]);
    expect(yaml11Readings("---\nname: a\nenabled: yes\nbad: [\n---\n")).toEqual([]);
    // y and n are text to PyYAML, SnakeYAML and Psych too (only yaml.v2 reads them as booleans): a warning
    // that they are true or false to "PyYAML" would be wrong where most hosts read them.
    expect(readings("answer: y\nskip: n\nflags: [Y, N]\ny: key\n")).toEqual([]);
    expect(yaml11Readings("no frontmatter: yes\n")).toEqual([]);
  });

  // An author need not know YAML's versions: the line says who reads what, that hosts therefore differ,
  // and what to write (it named "the Skills extension's entry" and no consequence).
  it("are told in one line naming the key, the value, both readings and the fix", () => {
    const [on, duration, mask] = yaml11Readings(
      document("metadata:\n  beta: on\n  duration: 1:30\n  mask: 0o17\n"),
    );
    expect(on && describeYaml11Reading(on)).toBe(
      'frontmatter "metadata.beta": on is the boolean true to PyYAML and other YAML 1.1 parsers but text ' +
        'to this server (YAML 1.2), so hosts read it differently: quote it ("on"), or write true or false ' +
        "if a boolean is meant",
    );
    expect(mask && describeYaml11Reading(mask)).toBe(
      'frontmatter "metadata.mask": 0o17 is text to PyYAML and other YAML 1.1 parsers but the number 15 ' +
        'to this server (YAML 1.2), so hosts read it differently: quote it ("0o17")',
    );
    expect(duration && describeYaml11Reading(duration)).toMatch(
      /^frontmatter "metadata.duration": 1:30 is the number 90 .*: quote it \("1:30"\)$/,
    );
  });

  // Regression: Ruby's Psych reads true, false, yes, no, on, off, null, .inf and .nan in any mix of cases
  // (`/^(yes|true|on)$/i` in its ScalarScanner), where PyYAML and this server read `tRUE` as text: a Ruby
  // host saw a boolean, and nothing said so. `True` and `TRUE` are booleans to all of them alike.
  it("take in the mixed-case words only Psych reads, naming Psych", () => {
    expect(readings("a: tRUE\nb: oFF\nc: nULL\nd: -.iNF\nyEs: key\ne: True\nf: NULL\ng: .NaN\n")).toEqual([
      "a tRUE: the boolean true / text",
      "b oFF: the boolean false / text",
      "c nULL: null / text",
      "d -.iNF: the number -Infinity / text",
      "yEs yEs: the boolean true / text",
    ]);
    const [mixed] = yaml11Readings(document("beta: oN\n"));
    expect(mixed && describeYaml11Reading(mixed)).toBe(
      'frontmatter "beta": oN is the boolean true to Ruby\'s Psych (YAML 1.1) but text to PyYAML ' +
        'and this server (YAML 1.2), so hosts read it differently: quote it ("oN"), or write true or false ' +
        "if a boolean is meant",
    );
  });

  // Regression: Psych's integers and floats take commas (`1,000` is 1000 unless strict_integer), its dates
  // a one-digit month or day, and `:x` is a symbol to it (an error to safe_load): text to PyYAML and here.
  it("take in the numbers, dates and symbols only Psych reads", () => {
    expect(
      readings("a: 1,000\nb: -1,000.5\nc: 2024-1-5\nd: 2023-2-29\ne: :rocket\nf: 1,2,3\ng: a,b\nh: 1,,2\n"),
    ).toEqual([
      "a 1,000: the number 1000 / text",
      "b -1,000.5: the number -1000.5 / text",
      "c 2024-1-5: a date / text",
      "e :rocket: a symbol (an error to its safe_load) / text",
      "f 1,2,3: the number 123 / text",
    ]);
  });

  // Regression: `on:` and `true:` are two keys here and one (true) to PyYAML and Psych, which keep the later
  // value only: the warning on `on` said it was true there, not that the other key's value was lost. In a
  // Python dict True is 1 too, so `1:` and `yes:` are one key to PyYAML alone.
  it("tell two keys of one mapping that a YAML 1.1 reader takes for one", () => {
    const same = (fields: string) =>
      yaml11Readings(document(fields))
        .filter((reading) => reading.sameKeyAs !== undefined)
        .map(describeYaml11Reading);
    expect(same("on: push\ntrue: x\n")).toEqual([
      'frontmatter "true": the keys "on" and "true" are one key (the boolean true) to PyYAML and Ruby\'s ' +
        "Psych, which keep only the later one's value, but two to this server (YAML 1.2), so hosts read it " +
        'differently: quote "on"',
    ]);
    expect(same("metadata:\n  1: one\n  yes: two\n  1:30: a\n  90: b\n")).toEqual([
      expect.stringMatching(
        /^frontmatter "metadata.yes": the keys "1" and "yes" are one key \(the boolean true\) to PyYAML, which keeps .*: quote "yes"$/,
      ),
      expect.stringMatching(
        /^frontmatter "metadata.90": the keys "1:30" and "90" are one key \(the number 90\) to PyYAML and Ruby's Psych,.*: quote "1:30"$/,
      ),
    ]);
    expect(same("True: a\ntRUE: b\n")).toEqual([
      expect.stringMatching(
        /^frontmatter "tRUE": the keys "True" and "tRUE" are one key \(the boolean true\) to Ruby's Psych, which keeps .*: quote "tRUE"$/,
      ),
    ]);
    // Quoted, or in two mappings, or read alike by neither: no such warning.
    expect(same('"on": a\ntrue: b\nm: {off: 1}\nn: {false: 2}\nx: 1\ny: 1\n')).toEqual([]);
  });

  // Regression: PyYAML resolves `2023-02-29`, `24:00:00`, year 0 and `0b_` as a date, a time or an integer,
  // then its constructor fails and the whole frontmatter with it; the warning said "a date" or "the number NaN".
  it("tell the dates, times and numbers PyYAML resolves but cannot construct as errors", () => {
    expect(
      readings(
        "a: 2023-02-29\nb: 2024-02-29\nc: 0000-01-01\nd: 2024-13-01\ne: 2024-1-1 24:00:00\n" +
          "f: 2024-1-1 23:59:60\ng: 2024-01-15 10:00:00 +24\nh: 2024-01-15 10:00:00 +23:59\ni: 0b_\nj: -0x__\n",
      ),
    ).toEqual([
      "a 2023-02-29: an error (no frontmatter at all) / text",
      "b 2024-02-29: a date / text",
      "c 0000-01-01: an error (no frontmatter at all) / text",
      "d 2024-13-01: an error (no frontmatter at all) / text",
      "e 2024-1-1 24:00:00: an error (no frontmatter at all) / text",
      "f 2024-1-1 23:59:60: an error (no frontmatter at all) / text",
      "g 2024-01-15 10:00:00 +24: an error (no frontmatter at all) / text",
      "h 2024-01-15 10:00:00 +23:59: a timestamp / text",
      "i 0b_: an error (no frontmatter at all) / text",
      "j -0x__: an error (no frontmatter at all) / text",
    ]);
  });

  // Regression: a tag PyYAML's safe loader has no constructor for (`!x`, `!!python/str`) makes it refuse the
  // whole frontmatter, and `! on` is true to it, where this server reads text with or without the tag: every
  // explicit tag was taken for one both read alike.
  it("take in the tags PyYAML's safe loader refuses, on keys and values, and a plain value tagged !", () => {
    expect(
      readings(
        "a: !x hello\nb: !!python/str x\n!k c: 1\nd: !m {x: 1}\ne: !!binary aGk=\nf: !!set {x}\ng: ! on\nh: ! x\n",
      ),
    ).toEqual([
      "a !x: an error (no frontmatter at all) / text",
      "b !!python/str: an error (no frontmatter at all) / text",
      "c !k: an error (no frontmatter at all) / text",
      "d !m: an error (no frontmatter at all) / a mapping",
      "g on: the boolean true / text",
    ]);
    const [tagged] = yaml11Readings(document("a: !x hello\n"));
    expect(tagged && describeYaml11Reading(tagged)).toBe(
      'frontmatter "a": the tag "!x" on the value is an error (no frontmatter at all) to PyYAML (its safe ' +
        "loader knows no such tag) but text to this server (YAML 1.2), so hosts read it differently: remove the tag",
    );
  });
});
