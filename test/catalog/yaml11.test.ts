import { describe, expect, it } from "vitest";
import { describeYaml11Reading, yaml11Readings } from "../../src/catalog/yaml11.js";

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
          '"no": quoted\n!!str y: tagged\ntrue: alike\n',
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
});
