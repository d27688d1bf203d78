import { describe, expect, it } from "vitest";
import {
  nameRuleViolation,
  parseSkillDocument,
  pyyamlRefusedKeys,
  stripBom,
} from "../../src/catalog/frontmatter.js";

describe("parseSkillDocument", () => {
  it("reads name and description", () => {
    expect(parseSkillDocument("---\nname: a\ndescription: Does a.\n---\n# A\n")).toEqual({
      ok: true,
      name: "a",
      description: "Does a.",
      modelInvocable: true,
      userInvocable: true,
    });
  });

  it("reads Claude Code's invocation flags, each only when set as the boolean that changes it", () => {
    const document = (flags: string) => parseSkillDocument(`---\nname: a\ndescription: b\n${flags}\n---\n`);
    expect(document("disable-model-invocation: true")).toMatchObject({
      modelInvocable: false,
      userInvocable: true,
    });
    expect(document("user-invocable: false")).toMatchObject({ modelInvocable: true, userInvocable: false });
    expect(document('disable-model-invocation: "true"\nuser-invocable: "no"')).toMatchObject({
      modelInvocable: true,
      userInvocable: true,
    });
  });

  it("accepts CRLF line ends and a BOM once stripped", () => {
    const text = stripBom("\uFEFF---\r\nname: a\r\ndescription: Does a.\r\n---\r\nbody\r\n");
    expect(parseSkillDocument(text)).toMatchObject({ ok: true, name: "a", description: "Does a." });
  });

  it("folds block scalars onto one line", () => {
    const text = "---\nname: a\ndescription: |\n  First line.\n  Second line.\n---\n";
    expect(parseSkillDocument(text)).toMatchObject({ description: "First line. Second line." });
    const folded = "---\nname: a\ndescription: >-\n  Folded\n  text\n---\n";
    expect(parseSkillDocument(folded)).toMatchObject({ description: "Folded text" });
  });

  it("reads quoted strings with colons and escapes", () => {
    const text = `---\nname: "a"\ndescription: 'Use when: the user says "hi"'\n---\n`;
    expect(parseSkillDocument(text)).toMatchObject({
      name: "a",
      description: 'Use when: the user says "hi"',
    });
  });

  it("reads YAML 1.2: a date and yes are text, as the author wrote them", () => {
    expect(parseSkillDocument("---\nname: a\ndescription: 2024-01-31\n---\n")).toMatchObject({
      description: "2024-01-31",
    });
    expect(parseSkillDocument("---\nname: a\ndescription: yes\n---\n")).toMatchObject({ description: "yes" });
  });

  it("serves a skill whose frontmatter repeats another key, reading its last value", () => {
    const twice = "---\nname: a\nmetadata: {v: 1}\ndescription: b\nmetadata: {name: x, name: y}\n---\n";
    expect(parseSkillDocument(twice)).toMatchObject({ ok: true, name: "a", description: "b" });
  });

  it("reads a value with an unknown tag as its text, without a process warning on stderr", async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on("warning", listener);
    try {
      expect(parseSkillDocument("---\nname: a\ndescription: !note b\n---\n")).toMatchObject({
        description: "b",
      });
      // Node emits process warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listener);
    }
    expect(warnings).toEqual([]);
  });

  it("gives a YAML error as one whole line, its place in the file included", () => {
    expect(parseSkillDocument("---\nname: x\ndescription: [unclosed\n---\n")).toEqual({
      ok: false,
      reason:
        "frontmatter is not valid YAML: Flow sequence in block collection must be sufficiently indented " +
        "and end with a ] at line 3, column 23 (put the value of description in quotes: in an unquoted " +
        'value YAML reads ": " and a leading [ { - * & ! @ or ` as syntax)',
    });
  });

  it("tells an author whose unquoted description holds a colon to quote it", () => {
    expect(parseSkillDocument("---\nname: x\ndescription: Use when: the user asks\n---\n")).toEqual({
      ok: false,
      reason:
        "frontmatter is not valid YAML: Nested mappings are not allowed in compact mappings at line 3, " +
        'column 14 (put the value of description in quotes: in an unquoted value YAML reads ": " and a ' +
        "leading [ { - * & ! @ or ` as syntax)",
    });
    const backtick = parseSkillDocument("---\nname: x\ndescription: `jq` filters\n---\n");
    expect(backtick.ok ? "" : backtick.reason).toContain("put the value of description in quotes");
  });

  // Regression: the parser quotes an alias or a key whole, and a reason quoting 60,000 characters of one
  // made `check-skills`' report too long for the pull request body it goes in.
  it("quotes only the start of an alias or a key a hostile frontmatter makes as long as it can", () => {
    const long = "k".repeat(60_000);
    const alias = parseSkillDocument(`---\nname: x\ndescription: *${long}\n---\n`);
    expect(alias.ok ? "" : alias.reason).toMatch(
      /^frontmatter is not valid YAML: Unresolved alias \(the anchor must be set before the alias\): k+…$/,
    );
    const key = parseSkillDocument(`---\nname: x\n${long}: a: b\ndescription: d\n---\n`);
    expect(key.ok ? "" : key.reason).toContain(`(put the value of ${"k".repeat(64)}… in quotes`);
    for (const parsed of [alias, key]) expect(parsed.ok ? "" : parsed.reason.length).toBeLessThan(500);
  });

  // Regression: the YAML parser counts a key's length in UTF-16 units, so a key of 513 emoji (1,026 units)
  // was refused as over YAML's 1,024-character limit, which PyYAML, js-yaml and the Skills extension read.
  it("reads a key of up to 1,024 characters, emoji counted as one each, and refuses a longer one saying so", () => {
    const document = (key: string) => parseSkillDocument(`---\nname: a\ndescription: b\n${key}: v\n---\n`);
    for (const key of ["😀".repeat(513), "😀".repeat(1024), `!!str ${"😀".repeat(1018)}`, "k".repeat(1024)]) {
      expect(document(key)).toMatchObject({ ok: true, name: "a" });
    }
    for (const [key, length] of [
      ["😀".repeat(1025), "1,025"],
      [`&x !!str ${"😀".repeat(1016)}`, "1,025"],
      ["k".repeat(2000), "2,000"],
    ] as const) {
      expect(document(key)).toEqual({
        ok: false,
        reason:
          `frontmatter is not valid YAML: the key at line 4 is ${length} characters long, and YAML reads a ` +
          'key of at most 1,024 (to its ":"), as PyYAML does: shorten it',
      });
    }
  });

  it("gives no quoting advice for an error in a quoted, block or nested value", () => {
    for (const text of [
      '---\nname: x\ndescription: "a" b\n---\n',
      "---\nname: x\ndescription: b\nmetadata:\n  author: a: b\n---\n",
    ]) {
      const parsed = parseSkillDocument(text);
      expect(parsed.ok ? "" : parsed.reason).toMatch(/^frontmatter is not valid YAML: [^(]*$/);
    }
  });

  it("says a frontmatter nested too deeply for the YAML parser is not valid YAML, not that it cannot be read", () => {
    // 2,450 levels, within the token limit: the parser recurses once a level, and overflows the stack
    // (from about 1,700 levels, the depth depending on how far V8 has compiled it) or finds the error.
    const nested = `a: [${'"a":'.repeat(2_450)}]`;
    expect(parseSkillDocument(`---\nname: a\ndescription: b\n${nested}\n---\n`)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^frontmatter is not valid YAML: /),
    });
  });

  // Regression: a SKILL.md saved by Windows PowerShell 5 (`>`, Out-File: UTF-16) starts with --- in its
  // author's editor, and was left out as having "no frontmatter (the file must start with ---)".
  it("says a SKILL.md saved as UTF-16 is not UTF-8, not that it has no frontmatter", () => {
    const utf16 = Buffer.from("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\n", "utf16le").toString(
      "utf8",
    );
    expect(parseSkillDocument(utf16)).toEqual({
      ok: false,
      reason:
        "SKILL.md is not UTF-8 (it holds NUL bytes, as UTF-16 does, which Windows PowerShell 5 writes): " +
        "save it as UTF-8",
    });
  });

  // Regression: a SKILL.md whose lines end in CR alone (classic Mac OS) was left out as having "no
  // frontmatter (the file must start with ---)", though it starts with ---, naming no cause.
  it("says a SKILL.md with CR-only line ends is to be saved with LF or CRLF, not that it has no frontmatter", () => {
    expect(parseSkillDocument("---\rname: a\rdescription: b\r---\r# A\r")).toEqual({
      ok: false,
      reason:
        "SKILL.md's line ends are CR only (as classic Mac OS wrote them): save the file with LF or CRLF line ends",
    });
    expect(parseSkillDocument("---\r\nname: a\r\ndescription: b\r\n---\r\n# A\r")).toMatchObject({
      ok: true,
      name: "a",
    });
    expect(parseSkillDocument("# Title\nno frontmatter\r")).toEqual({
      ok: false,
      reason: "no frontmatter (the file must start with ---)",
    });
  });

  it.each([
    ["with nothing after", "---\nname: a\ndescription: b\n...\n"],
    ["before the body", "---\nname: a\ndescription: b\n...\n# Title\n"],
    ["before a --- rule in the body", "---\nname: a\ndescription: b\n...\nSome text.\n\n---\nmore\n"],
  ])(
    "refuses a frontmatter closed by ... %s, as Claude and the Skills extension do, saying to close it with ---",
    (_case, markdown) => {
      expect(parseSkillDocument(markdown)).toEqual({
        ok: false,
        reason:
          'frontmatter ends at a "..." line (YAML\'s document end), which Claude, the Agent Skills format and the ' +
          "Skills extension do not read as its end: close the frontmatter with a --- line",
      });
    },
  );

  it("reads a frontmatter whose ... line is followed by its closing ---, as the Skills extension does", () => {
    expect(parseSkillDocument("---\nname: a\ndescription: b\n...\n# end\n---\nbody\n")).toMatchObject({
      ok: true,
      name: "a",
    });
  });

  it.each([
    ["no frontmatter", "# Just a title\n", "no frontmatter"],
    ["unclosed frontmatter", "---\nname: a\ndescription: b\n", "not closed"],
    ["invalid YAML", "---\nname: [a\ndescription: b\n---\n", "not valid YAML"],
    ["a name given twice", "---\nname: a\nname: b\ndescription: c\n---\n", "gives name more than once"],
    [
      "a description given twice",
      "---\nname: a\ndescription: b\ndescription: c\n---\n",
      "gives description more than once",
    ],
    [
      "aliases that expand without end",
      `---\nname: a\ndescription: b\na: &a [x, x, x, x, x, x, x, x, x, x]\n${[..."bcdefghij"]
        .map((key, i) => `${key}: &${key} [${Array(10).fill(`*${"abcdefghij"[i]}`).join(", ")}]`)
        .join("\n")}\n---\n`,
      "not valid YAML",
    ],
    [
      "a list",
      "---\n- a\n- b\n---\n",
      "frontmatter is a YAML list, not a YAML mapping: write it as key: value lines (name: …, description: …)",
    ],
    ["a scalar", "---\njust text\n---\n", "frontmatter is a YAML string, not a YAML mapping: write it as"],
    ["empty", "---\n---\n", "frontmatter is empty, not a YAML mapping: write it as"],
    ["no name", "---\ndescription: b\n---\n", "has no name"],
    ["no description", "---\nname: a\n---\n", "has no description"],
    [
      "a capitalised key",
      "---\nName: a\ndescription: b\n---\n",
      'frontmatter has no name (it has "Name": keys are lowercase)',
    ],
    ["a description key without a value", "---\nname: a\ndescription:\n---\n", "description is empty"],
    [
      "a numeric name",
      "---\nname: 42\ndescription: b\n---\n",
      'name is a number, not a string: put it in quotes (name: "…")',
    ],
    [
      "a boolean description",
      "---\nname: a\ndescription: true\n---\n",
      'description is a boolean, not a string: put it in quotes (description: "…")',
    ],
    [
      "a list as name",
      "---\nname: [a]\ndescription: b\n---\n",
      "name is a YAML list, not a string: write it as text on its line, in quotes, or after | or > for several lines",
    ],
    [
      "a mapping as description",
      "---\nname: a\ndescription:\n  Use when: asked\n---\n",
      "frontmatter description is a YAML mapping, not a string: write it as text on its line",
    ],
    ["a blank description", "---\nname: a\ndescription: '  '\n---\n", "description is empty"],
  ])("refuses %s and says why", (_case, text, reason) => {
    const parsed = parseSkillDocument(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.reason).toContain(reason);
  });
});

describe("nameRuleViolation", () => {
  it.each(["a", "pdf-tools", "n8n-code-nodes-official", "a".repeat(64)])("accepts %s", (name) => {
    expect(nameRuleViolation(name)).toBeUndefined();
  });

  it.each(["Upper", "two--hyphens", "-leading", "trailing-", "under_score", "sp ace"])("flags %s", (name) => {
    expect(nameRuleViolation(name)).toBe("must be lowercase letters, digits and single hyphens");
  });

  it("flags a name over 64 characters as too long", () => {
    expect(nameRuleViolation("a".repeat(65))).toBe("is longer than 64 characters");
  });
});

// Regression: `paper` spelled with a Cyrillic а was served beside `paper` with the warning that its name
// "must be lowercase letters, digits and single hyphens", which it looks to be: the author saw no fault.
describe("nameRuleViolation on a letter outside a-z", () => {
  it("names the letter and its code point, and adds nothing for ASCII or unseen characters", () => {
    expect(nameRuleViolation("p\u0430per")).toBe(
      'must be lowercase letters, digits and single hyphens: "\u0430" (U+0430) is not one of a-z',
    );
    expect(nameRuleViolation("caf\u00e9-menu")).toBe(
      'must be lowercase letters, digits and single hyphens: "\u00e9" (U+00E9) is not one of a-z',
    );
    for (const name of ["Upper", "ok\u202egnp", "cafe\u0301"]) {
      expect(nameRuleViolation(name)).toBe("must be lowercase letters, digits and single hyphens");
    }
  });
});

// What PyYAML 6.0.3's safe_load does with each (checked by running it): its scanner counts a key written
// without "? " from its start (anchor or tag included) to its ":", in characters, inside { } and [ ] too.
describe("pyyamlRefusedKeys", () => {
  const skill = (metadata: string) => `---\nname: a\ndescription: b\nmetadata: ${metadata}\n---\n`;
  const k = (length: number) => "k".repeat(length);

  it.each([
    ["a key of 1,024 characters", `{${k(1024)}: v}`],
    ["a key of 1,023 and a space before its colon", `{${k(1023)} : v}`],
    ["a quoted key of 1,024 with its quotes", `{"${k(1022)}": v}`],
    ["an anchored key of 1,024 with its anchor", `{&x ${k(1021)}: v}`],
    ["1,024 emoji", `{${"😀".repeat(1024)}: v}`],
    ["a longer key written with ?", `{? ${k(1025)} : v}`],
    ["a longer key with no value", `{${k(1025)}}`],
    ["a value over lines", '{a: "b\n  c"}'],
  ])("finds nothing PyYAML reads: %s", (_case, metadata) => {
    expect(parseSkillDocument(skill(metadata))).toMatchObject({ ok: true });
    expect(pyyamlRefusedKeys(skill(metadata))).toEqual([]);
  });

  it.each([
    ["a key of 1,025 characters", `{${k(1025)}: v}`, 1025],
    ["a key of 1,024 and a space before its colon", `{${k(1024)} : v}`, 1025],
    ["a quoted key of 1,025 with its quotes", `{"${k(1023)}": v}`, 1025],
    ["an anchored key of 1,025 with its anchor", `{&x ${k(1022)}: v}`, 1025],
    ["1,100 emoji", `{${"😀".repeat(1100)}: v}`, 1100],
  ])(
    "warns of a key the server reads and PyYAML refuses the frontmatter for: %s",
    (_case, metadata, length) => {
      expect(parseSkillDocument(skill(metadata))).toMatchObject({ ok: true });
      expect(pyyamlRefusedKeys(skill(metadata))).toEqual([
        expect.stringMatching(
          new RegExp(
            `^frontmatter line 4: the key ".{64}…" inside \\{ \\} is ${length.toLocaleString("en-US")} characters long to its ":": PyYAML refuses the whole frontmatter for it \\(it reads no key written without "\\? " longer than 1,024\\), where this server reads it: shorten it$`,
            "u",
          ),
        ),
      ]);
    },
  );

  it("warns of a key inside { } that runs over lines, which PyYAML refuses and the server reads", () => {
    const markdown = skill("{a\n  b: v}");
    expect(parseSkillDocument(markdown)).toMatchObject({ ok: true });
    expect(pyyamlRefusedKeys(markdown)).toEqual([
      'frontmatter line 4: the key "a b" inside { } runs over lines to its ":": PyYAML refuses the whole ' +
        'frontmatter for it (it reads no key written without "? " over more than one line), where this server ' +
        "reads it: write it on one line",
    ]);
  });
});
