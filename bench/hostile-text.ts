/**
 * Texts an attacker would write to stall or crash the audit's rules: each repeats what one rule starts to
 * match and never lets it finish, or piles up what a rule reports. Used by `npm run bench:audit` and by
 * the tests of the audit on hostile files.
 */

export interface HostileText {
  readonly name: string;
  /** The path the file is audited as: its ending picks the rules (`.md` adds html-comment). */
  readonly path: string;
  /** The text, of about `size` characters. */
  readonly make: (size: number) => string;
  /** Written a byte a character (ISO-8859-1), not as UTF-8: a file the server serves as binary. */
  readonly latin1?: true;
}

/** `unit` repeated to at least `size` characters. */
export function repeated(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.ceil(size / unit.length)));
}

export const HOSTILE_TEXTS: readonly HostileText[] = [
  // Issue 24, as reported: a stack overflow, and quadratic link rules.
  { name: "one line of base64", path: "p/s/data.txt", make: (size) => `aZ09${repeated("QUJDZGVm", size)}\n` },
  { name: "Markdown link starts", path: "p/s/SKILL.md", make: (size) => repeated("[a](http://x", size) },
  { name: "HTML link starts", path: "p/s/SKILL.md", make: (size) => repeated("<a href=x ", size) },
  // Found looking for more of the same.
  {
    name: "HTML tags, never closed",
    path: "p/s/SKILL.md",
    make: (size) => `${repeated("<a href=http://x ", size)}>`,
  },
  { name: "opening brackets", path: "p/s/SKILL.md", make: (size) => `${repeated("[", size)}](http://x)` },
  { name: "iex and spaces", path: "p/s/run.sh", make: (size) => `curl x; iex${" ".repeat(size)}x\n` },
  { name: "quotes after a pipe", path: "p/s/run.sh", make: (size) => `curl x | ${"'".repeat(size)}x\n` },
  {
    name: "sudo and its flags",
    path: "p/s/run.sh",
    make: (size) => `curl x | sudo${repeated(" -x", size)}\n`,
  },
  {
    name: "env and assignments",
    path: "p/s/run.sh",
    make: (size) => `curl x | env${repeated(" a=a=", size)}\n`,
  },
  // Words split as a shell splits them: a quote never closed is one word to the line's end, and a line
  // separator is part of a word.
  {
    name: "a quote never closed after a pipe",
    path: "p/s/run.sh",
    make: (size) => `curl x | A="${repeated("a b ", size)}\n`,
  },
  {
    name: "assignments holding line separators",
    path: "p/s/run.sh",
    make: (size) => `curl x | ${repeated("A=b\u2028c ", size)}sh\n`,
  },
  // A piped stage read as a shell reads it: redirections skipped, options' values passed, env's words split.
  {
    name: "redirections before a piped program",
    path: "p/s/run.sh",
    make: (size) => `curl x | ${repeated("2>&1 >f ", size)}sh\n`,
  },
  {
    name: "options taking a value after a piped interpreter",
    path: "p/s/run.sh",
    make: (size) => `curl x | python3${repeated(" -W x", size)}\n`,
  },
  {
    name: "PowerShell parameters after a pipe",
    path: "p/s/run.sh",
    make: (size) => `curl x | pwsh${repeated(" -ExecutionPolicy -NoProfile", size)}\n`,
  },
  {
    name: "env -S holding env -S",
    path: "p/s/run.sh",
    make: (size) => `curl x | env -S "${repeated("env -S 'env -S ", size)}"\n`,
  },
  {
    name: "pipes into quotes and redirections never closed",
    path: "p/s/run.sh",
    make: (size) => `curl x | ${repeated('A="a 2>| <', size)}\n`,
  },
  {
    name: "substitutions never closed after a pipe",
    path: "p/s/run.sh",
    make: (size) => `curl x | A=${repeated("$(`a ", size)}\n`,
  },
  // Parameter expansions run to their closing brace; tee's process substitutions are read for a shell.
  {
    name: "expansions never closed after a pipe",
    path: "p/s/run.sh",
    make: (size) => `curl x | A=${repeated("${a:-b ", size)}\n`,
  },
  {
    name: "tee into substitutions never closed",
    path: "p/s/run.sh",
    make: (size) => `curl x | tee ${repeated(">(tee ", size)}\n`,
  },
  {
    name: "tee into many substitutions",
    path: "p/s/run.sh",
    make: (size) => `curl x | tee${repeated(" >(a -x)", size)}\n`,
  },
  // Stages split at a `|` outside quotes only; a download's output written into process substitutions.
  {
    name: "pipes in quotes after a download",
    path: "p/s/run.sh",
    make: (size) => `curl x | jq '${repeated("a | ", size)}'\n`,
  },
  {
    name: "quotes never closed around a download's pipes",
    path: "p/s/run.sh",
    make: (size) => `echo "$(curl x)" ' ${repeated("a | \\' ", size)}\n`,
  },
  {
    name: "download written into many substitutions",
    path: "p/s/run.sh",
    make: (size) => `curl x${repeated(" > >(a -x) -o >(a)", size)}\n`,
  },
  // Pipelines ended by separators, each download on the line read on its own; outputs named with no space.
  {
    name: "downloads after separators",
    path: "p/s/run.sh",
    make: (size) => `${repeated("curl x; ", size)}\n`,
  },
  {
    name: "groups closed after downloads",
    path: "p/s/run.sh",
    make: (size) => `${repeated("{ curl x; a; } | ( b; curl x) && ", size)}\n`,
  },
  {
    name: "quotes closed after downloads",
    path: "p/s/run.sh",
    make: (size) => `${repeated("ssh h 'curl x; a' ", size)}\n`,
  },
  {
    name: "shells given substitutions",
    path: "p/s/run.sh",
    make: (size) => `curl x; ${repeated('bash -x -o a <(a) < <(b) <<< "$(c)"; ', size)}\n`,
  },
  {
    name: "later stages written into substitutions",
    path: "p/s/run.sh",
    make: (size) => `curl x | tee a${repeated(" -o>(a) > >(a -x)", size)}\n`,
  },
  {
    name: "download written into substitutions never closed",
    path: "p/s/run.sh",
    make: (size) => `curl x ${repeated("-o >(a > >(", size)}\n`,
  },
  // Groups after a pipe read command by command, runners' options written together, ssh's remote command
  // split anew, a shell's `-c` ending a cluster.
  {
    name: "groups after a pipe",
    path: "p/s/run.sh",
    make: (size) => `curl x | ${repeated("(a; { b && c || ", size)}\n`,
  },
  {
    name: "runner options written together",
    path: "p/s/run.sh",
    make: (size) => `curl x | sudo -${repeated("sEH", size)} ssh${repeated(" -Tp", size)}\n`,
  },
  {
    name: "remote commands after a pipe",
    path: "p/s/run.sh",
    make: (size) => `curl x | ${repeated("ssh h 'ssh h unshare -r ", size)}\n`,
  },
  {
    name: "shell option clusters before substitutions",
    path: "p/s/run.sh",
    make: (size) => `${repeated('sh -ecx "$(a) bash -cccc ', size)}\n`,
  },
  // Script blocks of downloads kept in variables, run or never run, and iex after -Command.
  {
    name: "script blocks kept and never run",
    path: "p/s/run.ps1",
    make: (size) => `${repeated("$b = [scriptblock]::Create((irm x)); & $c; ", size)}\n`,
  },
  {
    name: "script blocks kept on every line, run at the end",
    path: "p/s/run.ps1",
    make: (size) => `${repeated("$b=[scriptblock]::Create((irm x))\n", size)}& $b\n`,
  },
  // Downloads kept in variables as strings, on every line, run at the end or never.
  {
    name: "downloads kept on every line, run at the end",
    path: "p/s/run.ps1",
    make: (size) => `${repeated("$s=irm x; x=$(curl y)\n", size)}iex $s; eval "$x"\n`,
  },
  {
    name: "downloads kept and never run",
    path: "p/s/run.sh",
    make: (size) =>
      `${repeated('x=$(curl y); eval "$z"; iex $t; $t | iex; echo "$z" | sh <<< "$z"; & ([scriptblock]::Create($t)); ', size)}\n`,
  },
  {
    name: "printf formats never closed before kept downloads",
    path: "p/s/run.sh",
    make: (size) => `x=$(curl y)\n${repeated("printf '%s ", size)}"$x" | sh\n`,
  },
  // Kept downloads handed on in cycles and chains, run only in comments, and substitutions in a shell's text.
  {
    name: "downloads handed around in a cycle",
    path: "p/s/run.ps1",
    make: (size) =>
      `$s=irm x; x=$(curl y)\n${repeated('$t=$s; $s=$t; y="$x"; x="$y"\n', size)}iex $t; eval "$y"\n`,
  },
  {
    name: "downloads handed along a chain",
    path: "p/s/run.ps1",
    make: (size) => {
      const links = Array.from({ length: Math.ceil(size / 16) }, (_, index) => `$a${index + 1}=$a${index}\n`);
      return `$a0=irm x\n${links.join("")}iex $a${links.length}\n`;
    },
  },
  {
    name: "kept downloads run only in comments",
    path: "p/s/SKILL.md",
    make: (size) =>
      `\`\`\`bash\nx=$(curl y); $s=irm x\n${repeated('# eval "$x"; iex $s; & $s\n', size)}\`\`\`\n`,
  },
  {
    name: "substitutions in a shell's text",
    path: "p/s/run.sh",
    make: (size) => `curl x; sh -c "${repeated("$(a) `b` $(", size)}"\n`,
  },
  // PowerShell block comments: many holding downloads, one never closed, quotes and `#` around `<#`.
  {
    name: "block comments holding downloads",
    path: "p/s/run.ps1",
    make: (size) => `${repeated("<# irm x | iex #> ", size)}\n`,
  },
  {
    name: "a block comment never closed",
    path: "p/s/SKILL.md",
    make: (size) => `\`\`\`powershell\n${repeated("<# irm x | iex # '\n", size)}\`\`\`\n`,
  },
  {
    name: "quotes and hashes around block comments",
    path: "p/s/run.ps1",
    make: (size) => `irm x | iex ${repeated("'<#' \"#>\" a#<# ", size)}\n`,
  },
  {
    name: "a here-string never closed",
    path: "p/s/run.ps1",
    make: (size) => `$t = @'\n${repeated("<# irm x | iex '@ #> \"\n", size)}\n`,
  },
  {
    name: "iex -Command and spaces",
    path: "p/s/run.ps1",
    make: (size) => `irm x; iex -c${" ".repeat(size)}x\n`,
  },
  // A shell's hand-overs read in the whole of each value: many on every line, one value naming many
  // variables and substitutions, and assignments inside one value.
  {
    name: "hand-overs in values on every line",
    path: "p/s/run.sh",
    make: (size) => `x=$(curl y)\n${repeated(`y="set -e; $x"; z="$y \${x%.sh} $x"\n`, size)}eval "$z"\n`,
  },
  {
    name: "a value naming many variables",
    path: "p/s/run.sh",
    make: (size) => `x=$(curl y)\ny="${repeated(`$x \${x} $( $a`, size)}"\neval "$y"\n`,
  },
  {
    name: "assignments inside one value",
    path: "p/s/run.sh",
    make: (size) => `x=$(curl y)\ny=${repeated("a=$x", size)}\neval "$y"\n`,
  },
  // PowerShell's hand-overs read in the whole of each value: many on every line, one value naming many
  // variables and brackets never closed, and assignments inside one value.
  {
    name: "PowerShell hand-overs in values on every line",
    path: "p/s/run.ps1",
    make: (size) => `$s = irm y\n${repeated(`$t = "x; $s"; $u = 'a' + $t + "\${s}"\n`, size)}iex $u\n`,
  },
  {
    name: "a PowerShell value naming many variables",
    path: "p/s/run.ps1",
    make: (size) => `$s = irm y\n$t = ${repeated(`$s \${s} $( [ { `, size)}\niex $t\n`,
  },
  {
    name: "PowerShell assignments inside one value",
    path: "p/s/run.ps1",
    make: (size) => `$s = irm y\n$t = "${repeated("$a=$s", size)}"\niex $t\n`,
  },
  // Downloads saved to files and run: many saves each run later, one save and a line of many runs, and
  // one download naming many output files.
  {
    name: "saved downloads run on every line",
    path: "p/s/run.sh",
    make: (size) => repeated("curl -o x.sh y; bash x.sh; ./x.sh\n", size),
  },
  {
    name: "a saved download and a line of many runs",
    path: "p/s/run.sh",
    make: (size) => `wget -qO x y\n${repeated("sh -e x; ", size)}\n`,
  },
  {
    name: "a download naming many output files",
    path: "p/s/run.sh",
    make: (size) => `curl ${repeated("-o x ", size)}y\nsh x\n`,
  },
  // Shells' texts read as command lines of their own: evals nested in evals, and a text of many commands.
  {
    name: "evals nested in evals",
    path: "p/s/run.sh",
    make: (size) => `curl x; ${repeated("eval ", size)}curl x\n`,
  },
  {
    name: "shells' texts holding many commands",
    path: "p/s/run.sh",
    make: (size) => `curl x; sh -c 'bash -c "${repeated("eval sh -c wget; ", size)}"'\n`,
  },
  // Comments: every line of a shell block one, read by the Markdown walk; quotes and `#` in one line.
  {
    name: "comments in a fenced shell block",
    path: "p/s/SKILL.md",
    make: (size) => `\`\`\`bash\n${repeated("# curl x | sh\n", size)}\`\`\`\n`,
  },
  {
    name: "hashes and quotes before a comment",
    path: "p/s/run.sh",
    make: (size) => `curl x | sh ${repeated('a#b "# c" ', size)}# d\n`,
  },
  { name: "continued lines", path: "p/s/run.sh", make: (size) => `curl x ${repeated("\\\n", size)}| sh\n` },
  {
    name: "backticks never closed",
    path: "p/s/SKILL.md",
    make: (size) => `<!--\n${"`".repeat(size / 2)}${"a".repeat(size / 2)}\n`,
  },
  { name: "code spans", path: "p/s/SKILL.md", make: (size) => `<!--\n${repeated("`a` ", size)}\n` },
  { name: "a fence of backticks", path: "p/s/SKILL.md", make: (size) => `<!--\n${"`".repeat(size)}\n` },
  // One paragraph: each line's backtick closes a span opened on the line before, around its comment.
  {
    name: "code spans across lines",
    path: "p/s/SKILL.md",
    make: (size) => repeated("a ` <!-- x -->\n", size),
  },
  {
    name: "tags never closed",
    path: "p/s/SKILL.md",
    make: (size) => `${repeated('<a title="x ', size)} hidden>`,
  },
  {
    name: "display and spaces",
    path: "p/s/SKILL.md",
    make: (size) => `<p style="${repeated("display ", size)}:none">`,
  },
  { name: "definition starts", path: "p/s/SKILL.md", make: (size) => repeated("[//]: # (a [b]: <> ", size) },
  // Definitions with titles: each label is looked up among the brackets of the whole text.
  { name: "titled definitions", path: "p/s/SKILL.md", make: (size) => repeated('[a]: b "c"\n', size) },
  // The same without titles: what reading the links and the definitions once more costs titled ones.
  { name: "untitled definitions", path: "p/s/SKILL.md", make: (size) => repeated("[a]: b\n", size) },
  {
    name: "brackets and one titled definition",
    path: "p/s/SKILL.md",
    make: (size) => `[a]: b "c"\n\n${repeated("[a] [", size)}`,
  },
  { name: "titles on the next line", path: "p/s/SKILL.md", make: (size) => repeated('[a]: b\n"c', size) },
  { name: "destination parentheses", path: "p/s/SKILL.md", make: (size) => `[a]: ${"(".repeat(size)} "c"\n` },
  // One paragraph of code spans that pair across lines, each line with a hidden element.
  {
    name: "hidden tags and spans across lines",
    path: "p/s/SKILL.md",
    make: (size) => repeated("a ` <b hidden>\n", size),
  },
  {
    name: "quotes and spans",
    path: "p/s/SKILL.md",
    make: (size) => repeated("> a `\n>> <!-- x -->\n", size),
  },
  {
    name: "tag characters after a flag",
    path: "p/s/SKILL.md",
    make: (size) => `\u{1F3F4}${repeated("\u{E0041}", size)}`,
  },
  { name: "variation selectors", path: "p/s/SKILL.md", make: (size) => `a${repeated("\u{E0151}", size)}` },
  { name: "hex", path: "p/s/data.txt", make: (size) => repeated("0f", size) },
  // Many findings: the audit keeps what it reports, not every hit.
  {
    name: "invisible characters in words",
    path: "p/s/SKILL.md",
    make: (size) => repeated("a\u200Bb\n", size),
  },
  { name: "downloads piped into sh", path: "p/s/run.sh", make: (size) => repeated("curl x | sh\n", size) },
  // Served as binary, read as text by shells: the rules of commands read them a byte a character.
  {
    name: "downloads piped into sh, not UTF-8",
    path: "p/s/run.sh",
    make: (size) => `\xe9${repeated("curl x | sh\n", size)}`,
    latin1: true,
  },
  {
    name: "uploads after control characters",
    path: "p/s/run.sh",
    make: (size) => `${"\x01".repeat(8192)}\n${repeated("curl -d @x | ", size)}`,
    latin1: true,
  },
  {
    name: "rm after a NUL past git's 8,000 bytes",
    path: "p/s/run.sh",
    make: (size) => `${"#".repeat(8100)}\0\n${repeated("rm -rf x ", size)}`,
    latin1: true,
  },
  {
    name: "deceptive links on one line",
    path: "p/s/SKILL.md",
    make: (size) => repeated("[a.com](http://b.com) ", size),
  },
  {
    name: "tags in link text",
    path: "p/s/SKILL.md",
    make: (size) => repeated(`[${"<".repeat(300)}](http://x) `, size),
  },
  { name: "line breaks", path: "p/s/SKILL.md", make: (size) => "\n".repeat(size) },
  {
    name: "colours in a code block",
    path: "p/s/SKILL.md",
    make: (size) => `\`\`\`\n${repeated("\u001b[1;31mx\n", size)}`,
  },
  {
    name: "list items ever deeper",
    path: "p/s/SKILL.md",
    make: (size) =>
      repeated(
        `${Array.from({ length: 64 }, (_, i) => `${"  ".repeat(i)}- x\n`).join("")}\n    <!-- c -->\n`,
        size,
      ),
  },
  // List items opened on one line, each holding a fence or an HTML block the walker reads in it.
  { name: "items on one line", path: "p/s/SKILL.md", make: (size) => `${repeated("- ", size)}x\n` },
  {
    name: "fences in items on one line",
    path: "p/s/SKILL.md",
    make: (size) => repeated("- 1. - ```\n- <div>\n", size),
  },
  // Many items left open, then lines that may open a fence in one of them.
  {
    name: "fences under a deep list",
    path: "p/s/SKILL.md",
    make: (size) =>
      `${Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i)}- x\n`).join("")}${repeated("        ```\n", size)}`,
  },
  // Quotes opened on one line and in list items, many left open, then lines that end them or go on lazily.
  { name: "quotes on one line", path: "p/s/SKILL.md", make: (size) => `${repeated("> ", size)}<!-- c -->\n` },
  {
    name: "items before a comment",
    path: "p/s/SKILL.md",
    make: (size) => `${repeated("- ", size)}<!-- c -->\n`,
  },
  {
    name: "quotes in items on one line",
    path: "p/s/SKILL.md",
    make: (size) => repeated("- > 1. > ```\n<!-- c -->\n", size),
  },
  // Each quote line ends a list item's fence, and is read for its `>` a second time, out of code.
  {
    name: "quotes ending fences",
    path: "p/s/SKILL.md",
    make: (size) => repeated(`- \`\`\`\n${"> ".repeat(8)}<!-- c -->\n`, size),
  },
  {
    name: "lines under deep quotes",
    path: "p/s/SKILL.md",
    make: (size) =>
      `${repeated("> > > > > > > > a\n", 64_000)}${repeated("    y\n> ```\n<!-- c -->\n", size)}`,
  },
  // Each quote line ends a list item's HTML block, and is read for its `>` a second time, out of raw HTML.
  {
    name: "quotes ending HTML blocks",
    path: "p/s/SKILL.md",
    make: (size) => repeated(`- <pre>\n${"> ".repeat(8)}<!-- c -->\n`, size),
  },
  // Each line of sixteen quotes opens a group past the eighth; the next has only some of its `>`.
  {
    name: "some of a group's quotes",
    path: "p/s/SKILL.md",
    make: (size) => repeated(`${">".repeat(16)} a \`\n${">".repeat(12)}     <!-- c --> \`\n`, size),
  },
  // Each line opens twelve items, the last's text further in, and the next is indented between them.
  {
    name: "lines between a group's items",
    path: "p/s/SKILL.md",
    make: (size) => repeated(`${"- ".repeat(11)}-    # a\n${" ".repeat(21)}<!-- c -->\n`, size),
  },
  // A line of items not evenly spaced, each text column kept, then lines indented among them, each found by
  // halving and ending the items past it.
  {
    name: "lines in a line of uneven items",
    path: "p/s/SKILL.md",
    make: (size) =>
      `${repeated("- 1. ", size / 2)}x\n${repeated(`${" ".repeat(37)}<!-- c -->\n\n${" ".repeat(41)}\`\`\`\n`, size / 2)}`,
  },
  // A paragraph under a line of many items: each line is read against the first line's containers.
  {
    name: "paragraph lines under a line of items",
    path: "p/s/SKILL.md",
    make: (size) => `${repeated("- > ", size / 2)}\`a\n${repeated("      b <!-- c --> `\n", size / 2)}`,
  },
  // Each item's line opens a quote whose text is indented code, and a paragraph after it reads spans.
  {
    name: "indented code on items' lines",
    path: "p/s/SKILL.md",
    make: (size) => `${repeated("- >     `x\n` <!-- c --> `\n", size)}-${" ".repeat(size)}x\n`,
  },
  {
    name: "attributes of a tag",
    path: "p/s/SKILL.md",
    make: (size) => `<a${repeated(" b='c'", size)}\n<!--`,
  },
  { name: "decimal digits", path: "p/s/data.txt", make: (size) => repeated("7368", size) },
  // Tags alone go on with the paragraph above them: one paragraph, and one code span, across all of them.
  {
    name: "tags alone under a paragraph",
    path: "p/s/SKILL.md",
    make: (size) => `a \`x\n${repeated("<span>\n</pre>\n", size)}<!-- c --> \`\n`,
  },
  // Each lazy underline goes on with the quote's paragraph, and so does the line four columns in after it.
  {
    name: "lazy underlines in a quote",
    path: "p/s/SKILL.md",
    make: (size) => `> a\n${repeated("===\n>     <!-- c --> `\n", size)}`,
  },
  // Each paragraph is a heading underlined by a \`-\` alone, with indented code after it.
  {
    name: "headings underlined by a dash",
    path: "p/s/SKILL.md",
    make: (size) => repeated("a `b\n-\n     <!-- c --> `\n", size),
  },
  // secret-file, data-upload and prompt-injection: each hit reads a bounded stretch, each command once.
  {
    name: "curl and options sending nothing",
    path: "p/s/run.sh",
    make: (size) => `curl ${repeated("-d x ", size)}\n`,
  },
  { name: "nc after separators", path: "p/s/run.sh", make: (size) => repeated("x ; nc ", size) },
  { name: "uploads on one line", path: "p/s/run.sh", make: (size) => repeated("curl -d @x | ", size) },
  { name: "ssh folders on one line", path: "p/s/SKILL.md", make: (size) => repeated("~/.ssh ", size) },
  {
    name: "overrides never finished",
    path: "p/s/SKILL.md",
    make: (size) => repeated("ignore all all all previous ", size),
  },
  {
    // A word of quotes ending in a letter: stripping its trailing quotes with a regular expression tried
    // the rest of the run at each quote (80,000 took 2.5 s).
    name: "quotes inside an upload's word",
    path: "p/s/run.sh",
    make: (size) => `curl a${'"'.repeat(Math.max(0, size - 8))}b\n`,
  },
  // data-upload reads a command holding a quote twice, the second time with quoted text kept in its word.
  {
    name: "quoted separators in an upload",
    path: "p/s/run.sh",
    make: (size) => `curl ${repeated('-H "a | b" ', size)}\n`,
  },
  {
    name: "quotes never closed in an upload",
    path: "p/s/run.sh",
    make: (size) => `curl ${repeated('-H "a ', size)}\n`,
  },
  // data-upload reads a word holding a command (quoted whole, or a substitution) once more, no deeper.
  {
    name: "commands in an upload's words",
    path: "p/s/run.sh",
    make: (size) => `curl ${repeated('"$(sh -c \'curl "$(a ', size)}\n`,
  },
  { name: "rm and many arguments", path: "p/s/run.sh", make: (size) => repeated("rm -rf x ", size) },
  // rm's arguments read with their quotes: a `;` in quotes ends no command.
  {
    name: "rm and a quote never closed",
    path: "p/s/run.sh",
    make: (size) => `rm -rf '${repeated("rm -rf a; ", size)}\n`,
  },
  {
    name: "rm and quoted separators",
    path: "p/s/run.sh",
    make: (size) => repeated(`rm -rf "a;" 'b|' c\\; `, size),
  },
  { name: "dd never writing a disk", path: "p/s/run.sh", make: (size) => repeated("dd if=x ", size) },
  {
    name: "secrets kept from no one",
    path: "p/s/SKILL.md",
    make: (size) => repeated("do not tell them ", size),
  },
  {
    name: "advice on what to tell the user",
    path: "p/s/SKILL.md",
    make: (size) => repeated("do not tell the user what to do ", size),
  },
  // Each call of code that sends starts data-upload, which reads its line once for the whole environment.
  {
    name: "code sending one variable at a time",
    path: "p/s/send.py",
    make: (size) => repeated("fetch( requests.post( os.environ[k] ls  env:x\n", size),
  },
  // Each `user` starts a concealment read to its verb, and `keep … from` reads seven words after.
  {
    name: "users who must not, kept from no one",
    path: "p/s/SKILL.md",
    make: (size) => repeated("the user must not keep it from them without the user ", size),
  },
  // upload-instruction: each verb of sending reads one sentence's first 200 characters, to its first `to`.
  {
    name: "sending words never reaching a host",
    path: "p/s/SKILL.md",
    make: (size) => repeated("send x to to ", size),
  },
  {
    name: "uploads in words on one line",
    path: "p/s/SKILL.md",
    make: (size) => repeated("upload ~/.env to https://x ", size),
  },
  // In the passive each participle also reads the 100 characters before it, for what it sends.
  {
    name: "passive uploads on one line",
    path: "p/s/SKILL.md",
    make: (size) => repeated("the token is then sent to https://x ", size),
  },
  // Each reads its clause back: through an insert between commas, to the clause's start past six words,
  // and, after `once`, the words after the host up to the main clause's verb.
  {
    name: "passive uploads past an insert",
    path: "p/s/SKILL.md",
    make: (size) => repeated("the token, once created, is sent to https://x ", size),
  },
  {
    name: "passive uploads of long subjects",
    path: "p/s/SKILL.md",
    make: (size) => repeated("Your token with the repo and workflow scopes is sent to https://x. ", size),
  },
  {
    name: "passive uploads once done",
    path: "p/s/SKILL.md",
    make: (size) => repeated("Once your token is uploaded to https://x, delete this. ", size),
  },
  {
    name: "passive uploads when done",
    path: "p/s/SKILL.md",
    make: (size) => repeated("When your token is uploaded to https://x, delete this. ", size),
  },
];
