import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  loadCatalogConfig,
  loadConfig,
  SETTINGS,
  type Setting,
  type SettingFiles,
  USAGE,
} from "../../src/config/index.js";
import { OPTIONS } from "../../src/config/options.js";
import { ROOT } from "../helpers/process.js";

/** Where the tests' configs are read from: a folder of no machine, since no disk is read. */
const CWD = "/work";
const EXAMPLES = "/package/examples/skills";

/** A machine holding `texts` (by full path) and `folders`, and nothing else. */
function filesOf(
  texts: Readonly<Record<string, string>> = {},
  folders: readonly string[] = [],
): SettingFiles {
  return {
    exists: (fullPath) => fullPath in texts || folders.includes(fullPath),
    readText: (fullPath) => {
      const text = texts[fullPath];
      if (text !== undefined) return text;
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${fullPath}'`), {
        code: folders.includes(fullPath) ? "EISDIR" : "ENOENT",
      });
    },
    examplesDir: () => EXAMPLES,
  };
}

/** The config of `env` and `argv` on a machine of `files`, read from CWD. */
function configOf(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[] = [],
  files: SettingFiles = filesOf(),
) {
  return loadConfig(env, argv, { cwd: CWD, files });
}

describe("loadConfig", () => {
  it("defaults to port 8000 on every interface, HTTP, and the bundled examples", () => {
    expect(configOf({})).toEqual({
      skillsDir: EXAMPLES,
      skillsDirOrigin: "examples",
      skillPacks: [],
      port: 8000,
      host: "0.0.0.0",
      logLevel: "info",
      prompts: true,
      catalogPreview: true,
      packDescriptions: new Map(),
      serveUnsafeSkills: false,
      transport: "http",
      help: false,
      version: false,
      steering: false,
      steeringPacks: [],
      buildIndex: false,
      savedIndexFile: path.join(EXAMPLES, ".search-index"),
      http: {
        allowedOrigins: [],
        allowedHosts: [],
        apiKeys: [],
        rateLimitPerMinute: 0,
        trustProxyHops: 0,
        shedEventLoopDelayMs: 1000,
        shedEventLoopUtilization: 0,
        shedRssBytes: 0,
        requestTimeoutMs: 10_000,
        keepAliveTimeoutMs: 72_000,
        maxBodyBytes: 65_536,
      },
      shutdownDrainMs: 2000,
      misspelledSettings: [],
      ignoredSettings: [],
    });
  });

  it("prefers ./skills when it exists, and SKILLS_DIR over both", () => {
    const files = filesOf({}, ["/work/skills"]);
    expect(configOf({}, [], files)).toMatchObject({ skillsDir: "/work/skills", skillsDirOrigin: "./skills" });
    expect(configOf({ SKILLS_DIR: "other" }, [], files)).toMatchObject({
      skillsDir: "/work/other",
      skillsDirOrigin: "SKILLS_DIR",
    });
  });

  // Settings were read with the disk (./skills, PACK_DESCRIPTIONS, API_KEYS_FILE), so no test of them could
  // go without one: config is parsing, and what it reads comes from the files its caller gives.
  it("reads the disk only through the files it is given, and only the files its settings name", () => {
    const asked: string[] = [];
    const files = filesOf({ "/work/keys": "key-from-file-0123456789\n", "/etc/packs.yaml": "p: A pack.\n" });
    const watched: SettingFiles = {
      exists: (fullPath) => {
        asked.push(`exists ${fullPath}`);
        return files.exists(fullPath);
      },
      readText: (fullPath) => {
        asked.push(`read ${fullPath}`);
        return files.readText(fullPath);
      },
      examplesDir: () => {
        asked.push("examples");
        return files.examplesDir();
      },
    };
    configOf({ SKILLS_DIR: "skills" }, [], watched);
    expect(asked).toEqual([]);
    const config = configOf({ API_KEYS_FILE: "keys", PACK_DESCRIPTIONS: "/etc/packs.yaml" }, [], watched);
    expect(asked).toEqual(["exists /work/skills", "examples", "read /etc/packs.yaml", "read /work/keys"]);
    expect(config.packDescriptions).toEqual(new Map([["p", "A pack."]]));
    expect(config.http.apiKeys).toEqual(["key-from-file-0123456789"]);
    for (const file of readdirSync(path.join(ROOT, "src/config"))) {
      const source = readFileSync(path.join(ROOT, "src/config", file), "utf8");
      expect({ file, disk: /from "node:fs|\/package\.js"/.test(source) }).toEqual({ file, disk: false });
    }
  });

  it("says what is wrong with a file a setting names, as it is read", () => {
    expect(() =>
      configOf({ PACK_DESCRIPTIONS: "packs.yaml", API_KEYS_FILE: "/etc" }, [], filesOf({}, ["/etc"])),
    ).toThrow(
      "PACK_DESCRIPTIONS /work/packs.yaml cannot be read: there is no such file (ENOENT); API_KEYS_FILE /etc cannot be read: it is a folder (EISDIR); give a file",
    );
  });

  // LOG_LEVEL=INFO and TRANSPORT=HTTP were refused while PROMPTS=OFF was read: every enumerated setting
  // is now read in any case.
  it("reads every enumerated setting in any case", () => {
    const config = configOf({
      LOG_LEVEL: "INFO",
      TRANSPORT: "Stdio",
      PROMPTS: "OFF",
      CATALOG_PREVIEW: "Off",
      UNSAFE_SKILLS: "SERVE",
    });
    expect(config).toMatchObject({
      logLevel: "info",
      transport: "stdio",
      prompts: false,
      catalogPreview: false,
      serveUnsafeSkills: true,
    });
    expect(configOf({ TRANSPORT: "HTTP", LOG_LEVEL: "Debug" })).toMatchObject({
      transport: "http",
      logLevel: "debug",
    });
  });

  it("reads SKILL_PACKS as a comma list and --stdio or TRANSPORT=stdio", () => {
    expect(configOf({ SKILL_PACKS: " n8n, ,penpot/design " }).skillPacks).toEqual(["n8n", "penpot/design"]);
    expect(configOf({}, ["--stdio"]).transport).toBe("stdio");
    expect(configOf({ TRANSPORT: "stdio" }).transport).toBe("stdio");
  });

  // A template whose parts came out empty (`${A},${B}`) loaded every pack, the opposite of what was meant.
  it("refuses a SKILL_PACKS of commas and spaces alone, and reads an empty one as every pack", () => {
    for (const value of [",", " ", " , ,"]) {
      expect(() => configOf({ SKILL_PACKS: value })).toThrow(
        `SKILL_PACKS ${JSON.stringify(value)} names no pack or group, only commas and spaces: set a comma list of packs, groups or pack/group, or leave it unset (or empty) to load every pack`,
      );
    }
    expect(configOf({ SKILL_PACKS: "" }).skillPacks).toEqual([]);
    expect(configOf({ SKILL_PACKS: "n8n," }).skillPacks).toEqual(["n8n"]);
  });

  // API_KEYS="${KEY_A},${KEY_B}" with both unset served /mcp to anyone, and ALLOWED_HOSTS so accepted any
  // Host: each setting meant to close the server was read as unset, opening it, without a word.
  it.each([
    [
      "API_KEYS",
      "names no key",
      "set a comma list of keys, or leave it unset (or empty) for no authentication",
    ],
    [
      "ALLOWED_HOSTS",
      "names no host",
      "set a comma list of host or host:port values, or leave it unset (or empty) to accept any Host",
    ],
  ])("refuses an %s of commas and spaces alone, and reads an empty one as unset", (name, what, fix) => {
    for (const value of [",", " ", " , ,"]) {
      expect(() => configOf({ [name]: value })).toThrow(
        `${name} ${JSON.stringify(value)} ${what}, only commas and spaces: ${fix}`,
      );
    }
    expect(configOf({ [name]: "" }).http).toMatchObject({ apiKeys: [], allowedHosts: [] });
  });

  it("reads PROMPTS as on or off, in any case, and refuses anything else", () => {
    expect(configOf({ PROMPTS: "off" }).prompts).toBe(false);
    expect(configOf({ PROMPTS: " ON " }).prompts).toBe(true);
    expect(() => configOf({ PROMPTS: "no" })).toThrow('PROMPTS "no" is not one of on, off');
  });

  // A blank --pack (an unset variable in a script) gave the steering line of every pack.
  it("refuses a blank --pack with --steering", () => {
    expect(() => configOf({}, ["--steering", "--pack", " , "])).toThrow("--pack needs a selector");
    expect(configOf({}, ["--steering", "--pack", "a,"]).steeringPacks).toEqual(["a"]);
  });

  it("reads UNSAFE_SKILLS as leave-out or serve, and refuses anything else", () => {
    expect(configOf({ UNSAFE_SKILLS: "serve" }).serveUnsafeSkills).toBe(true);
    expect(configOf({ UNSAFE_SKILLS: "leave-out" }).serveUnsafeSkills).toBe(false);
    expect(() => configOf({ UNSAFE_SKILLS: "always" })).toThrow(
      'UNSAFE_SKILLS "always" is not one of leave-out, serve',
    );
  });

  it("reads --build-index, which saves the index in the skills folder and serves nothing", () => {
    expect(configOf({ SKILLS_DIR: "catalog" }, ["--build-index"])).toMatchObject({
      buildIndex: true,
      savedIndexFile: "/work/catalog/.search-index",
    });
    expect(() => configOf({ SKILLS_DIR: "catalog" }, ["--build-index", "--stdio"])).toThrow(
      "--build-index saves the search index and exits: it serves nothing, over stdio or HTTP",
    );
    // Without SKILLS_DIR or ./skills there are only the bundled examples, inside the installed package.
    expect(() => configOf({}, ["--build-index"])).toThrow(
      /--build-index saves into the skills folder: set SKILLS_DIR .*the bundled examples need no saved index/,
    );
    // Regression: a wrong command line was followed by this, which is beside the point until it is fixed.
    for (const other of ["--steering", "--stdio"]) {
      expect(() => configOf({}, ["--build-index", other])).toThrow(
        /^--(steering prints|build-index saves the search index)[^;]*$/,
      );
    }
    expect(USAGE).toContain("  --build-index ");
  });

  it("says its exit statuses in --help, as sync's and the scripts' help do", () => {
    expect(USAGE.replaceAll("\n", " ")).toContain(
      "Exit status: 0 served until stopped, or done; 1 it failed (a setting, the skills folder, the address or the saved index; one line says why); 2 the command line is wrong.",
    );
  });

  it("tells a wrong command line from a wrong setting, for the exit status", () => {
    const thrown = (env: Record<string, string>, argv: string[]) => {
      try {
        configOf(env, argv);
      } catch (error) {
        return error instanceof ConfigError ? { message: error.message, usage: error.usage } : error;
      }
      return undefined;
    };
    expect(thrown({}, ["--bogus"])).toMatchObject({ usage: true });
    expect(thrown({}, ["--pack", "p"])).toMatchObject({ usage: true });
    expect(thrown({ PORT: "abc" }, ["--build-index", "--stdio"])).toMatchObject({ usage: true });
    expect(thrown({ PORT: "abc" }, [])).toMatchObject({ usage: false });
    expect(thrown({}, ["--build-index"])).toMatchObject({ usage: false });
  });

  it("lists every problem at once", () => {
    const load = () => configOf({ PORT: "70000", TRANSPORT: "sse" }, ["--verbose"]);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      /unknown option --verbose; valid: --stdio, .*PORT "70000".*TRANSPORT "sse" is not one of http, stdio/,
    );
  });

  // A value was put back raw: an escape sequence recoloured the terminal, a line break split the problem
  // in two, and a long value buried the other problems.
  it("quotes a value back escaped and cut", () => {
    const hostile = `red\u001b[31m\nnext${"x".repeat(300)}`;
    const said = '"red{U+001B}[31m{U+000A}next';
    const load = () =>
      configOf(
        {
          PORT: hostile,
          LOG_LEVEL: hostile,
          RATE_LIMIT_PER_MINUTE: hostile,
          ALLOWED_ORIGINS: hostile,
          ALLOWED_HOSTS: hostile,
        },
        [hostile],
      );
    let message = "";
    try {
      load();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain("\u001b");
    expect(message).not.toContain("\n");
    for (const where of [
      "unexpected argument",
      "PORT",
      "LOG_LEVEL",
      "RATE_LIMIT_PER_MINUTE",
      "ALLOWED_ORIGINS entry",
      "ALLOWED_HOSTS entry",
    ]) {
      expect(message).toContain(`${where} ${said}${"x".repeat(87)}…"`);
    }
  });

  // In a Deployment's env, SKILL_PACK served every pack and ALLOWED_HOST any host, and nothing said why.
  it("names each variable one slip from a setting, and leaves everyone else's alone", () => {
    const config = configOf({
      SKILL_PACK: "n8n",
      allowed_hosts: "skills.example.com",
      SKILLS_PACKS: "n8n",
      API_KEY: "not-read-as-a-key",
      PROMPT: "$P$G",
      HOSTNAME: "pod-1",
      SKILLS_MCP_SERVICE_PORT: "8000",
      NODE_ENV: "production",
    });
    expect(config.skillPacks).toEqual([]);
    expect(config.misspelledSettings).toEqual([
      "SKILL_PACK is not a setting, and is ignored: did you mean SKILL_PACKS?",
      "allowed_hosts is not a setting, and is ignored: did you mean ALLOWED_HOSTS?",
      "SKILLS_PACKS is not a setting, and is ignored: did you mean SKILL_PACKS?",
      "API_KEY is not a setting, and is ignored: did you mean API_KEYS?",
    ]);
  });

  // Over stdio, API_KEY was warned about as a misspelt API_KEYS, as if the server had started without keys.
  it("says over stdio that the setting a slip is close to applies only over HTTP, if it does", () => {
    const env = { API_KEY: "not-read-as-a-key", RATE_LIMIT_PER_MINUTES: "60", SKILL_PACK: "n8n" };
    for (const config of [configOf(env, ["--stdio"]), configOf({ ...env, TRANSPORT: "stdio" })]) {
      expect(config.misspelledSettings).toEqual([
        "API_KEY is not a setting, and is ignored; API_KEYS, the setting it is one slip from, applies only over HTTP, not over stdio",
        "RATE_LIMIT_PER_MINUTES is not a setting, and is ignored; RATE_LIMIT_PER_MINUTE, the setting it is one slip from, applies only over HTTP, not over stdio",
        "SKILL_PACK is not a setting, and is ignored: did you mean SKILL_PACKS?",
      ]);
    }
  });

  // Regression: --build-index and --steering, which ignore the HTTP settings, asked of API_KEY "did you mean
  // API_KEYS?", as if the keys mattered to them.
  it("says for the commands that serve nothing that the setting a slip is close to applies only over HTTP", () => {
    const env = { SKILLS_DIR: "skills", API_KEY: "not-read-as-a-key", SKILL_PACK: "n8n" };
    for (const command of ["--build-index", "--steering"]) {
      expect(configOf(env, [command]).misspelledSettings).toEqual([
        `API_KEY is not a setting, and is ignored; API_KEYS, the setting it is one slip from, applies only over HTTP, not to ${command}`,
        "SKILL_PACK is not a setting, and is ignored: did you mean SKILL_PACKS?",
      ]);
    }
  });

  // TRANSPORT=stdio with PORT=abc refused to start, though README says the HTTP settings do nothing there.
  it("does not check the HTTP settings over stdio, and still checks the others", () => {
    const env = { PORT: "abc", RATE_LIMIT_PER_MINUTE: "-1", MAX_BODY_BYTES: "1" };
    expect(configOf({ ...env, TRANSPORT: "stdio" }).transport).toBe("stdio");
    expect(configOf(env, ["--stdio"]).transport).toBe("stdio");
    // Nor silently: a warning names each, and says it does nothing here.
    expect(configOf(env, ["--stdio"]).ignoredSettings).toEqual([
      'PORT "abc" is not a port number (0-65535); ignored: it applies only over HTTP, not over stdio',
      'RATE_LIMIT_PER_MINUTE "-1" is not a whole number from 0 to 1000000; ignored: it applies only over HTTP, not over stdio',
      'MAX_BODY_BYTES "1" is not a whole number from 1024 to 16777216; ignored: it applies only over HTTP, not over stdio',
    ]);
    expect(
      configOf({ ...env, PORT: "8080", RATE_LIMIT_PER_MINUTE: "", MAX_BODY_BYTES: "1024" }, ["--stdio"])
        .ignoredSettings,
    ).toEqual([]);
    expect(() => configOf(env)).toThrow(/PORT "abc".*RATE_LIMIT_PER_MINUTE.*MAX_BODY_BYTES/);
    expect(() => configOf({ ...env, LOG_LEVEL: "loud" }, ["--stdio"])).toThrow(/^LOG_LEVEL "loud"[^;]*$/);
  });

  // A PORT or API_KEYS_FILE meant for the server stopped --build-index and --steering, which serve nothing.
  it("does not check the HTTP settings for the commands that serve nothing, and still checks the others", () => {
    const env = { SKILLS_DIR: "skills", PORT: "abc", API_KEYS: "short", API_KEYS_FILE: "missing" };
    expect(configOf(env, ["--build-index"]).buildIndex).toBe(true);
    expect(configOf(env, ["--steering"]).steering).toBe(true);
    expect(configOf(env, ["--build-index"]).ignoredSettings).toEqual([
      expect.stringMatching(/^PORT "abc" .*; ignored: it applies only over HTTP, not to --build-index$/),
      expect.stringMatching(/^API_KEYS .*; ignored: it applies only over HTTP, not to --build-index$/),
      expect.stringMatching(/^API_KEYS_FILE .*; ignored: it applies only over HTTP, not to --build-index$/),
    ]);
    expect(() => configOf({ ...env, PROMPTS: "no" }, ["--build-index"])).toThrow(/^PROMPTS "no"[^;]*$/);
  });

  it("answers --help and --version whatever the environment holds, as they read no setting", () => {
    const badEnv = { PORT: "abc", LOG_LEVEL: "loud" };
    expect(() => configOf(badEnv)).toThrow(/PORT "abc"/);
    expect(configOf(badEnv, ["--help"]).help).toBe(true);
    expect(configOf(badEnv, ["--version"]).version).toBe(true);
    // An unknown option still fails: the parse that would find --help failed.
    expect(() => configOf(badEnv, ["--help", "--verbose"])).toThrow(/--verbose/);
  });
});

describe("loadCatalogConfig", () => {
  const catalogConfigOf = (env: Readonly<Record<string, string | undefined>>) =>
    loadCatalogConfig(env, "check-skills", { cwd: CWD, files: filesOf() });

  it("reads which skills are served, and where the saved index is", () => {
    expect(
      catalogConfigOf({ SKILLS_DIR: "/srv/skills", SKILL_PACKS: "a, b", UNSAFE_SKILLS: "serve" }),
    ).toEqual({
      skillsDir: "/srv/skills",
      skillsDirOrigin: "SKILLS_DIR",
      savedIndexFile: "/srv/skills/.search-index",
      skillPacks: ["a", "b"],
      serveUnsafeSkills: true,
      buildIndex: false,
      steering: false,
      misspelledSettings: [],
      ignoredSettings: [],
    });
  });

  // SKILL_PACK=n8n npm run check-skills checked every pack, and nothing said why.
  it("names a variable one slip from a setting it reads, as the server does, and no slip from another", () => {
    const env = { SKILL_PACK: "n8n", unsafe_skills: "serve", API_KEY: "key", LOG_LEVL: "debug" };
    const config = catalogConfigOf(env);
    expect(config.skillPacks).toEqual([]);
    expect(config.misspelledSettings).toEqual([
      "SKILL_PACK is not a setting, and is ignored: did you mean SKILL_PACKS?",
      "unsafe_skills is not a setting, and is ignored: did you mean UNSAFE_SKILLS?",
    ]);
  });

  // check-skills refused to run for a PORT left in the shell for the server: it serves nothing.
  it("warns of an invalid setting it does not read, and still refuses an invalid one it reads", () => {
    const env = { SKILLS_DIR: "/srv/skills", PORT: "abc", PROMPTS: "no", API_KEYS_FILE: "missing" };
    expect(catalogConfigOf(env).ignoredSettings).toEqual([
      'PORT "abc" is not a port number (0-65535); ignored: check-skills reads only SKILLS_DIR, SKILL_PACKS and UNSAFE_SKILLS',
      expect.stringMatching(
        /^PROMPTS "no" .*; ignored: check-skills reads only SKILLS_DIR, SKILL_PACKS and UNSAFE_SKILLS$/,
      ),
      expect.stringMatching(
        /^API_KEYS_FILE .*; ignored: check-skills reads only SKILLS_DIR, SKILL_PACKS and UNSAFE_SKILLS$/,
      ),
    ]);
    expect(() => catalogConfigOf({ ...env, UNSAFE_SKILLS: "maybe" })).toThrow(/^UNSAFE_SKILLS "maybe"[^;]*$/);
  });
});

describe("HTTP protection settings", () => {
  it("reads origins, hosts, limits and timeouts", () => {
    const config = configOf({
      ALLOWED_ORIGINS: "https://App.example.com, http://localhost:5173/",
      ALLOWED_HOSTS: "skills.example.com,127.0.0.1:8000,[::1]:8000",
      RATE_LIMIT_PER_MINUTE: "600",
      TRUST_PROXY: "1",
      SHED_EVENT_LOOP_DELAY_MS: "0",
      SHED_EVENT_LOOP_UTILIZATION: "0.95",
      SHED_RSS_MB: "512",
      REQUEST_TIMEOUT_MS: "5000",
      KEEP_ALIVE_TIMEOUT_MS: "620000",
      MAX_BODY_BYTES: "131072",
      SHUTDOWN_DRAIN_MS: "0",
    });
    expect(config.http).toEqual({
      allowedOrigins: ["https://app.example.com", "http://localhost:5173"],
      allowedHosts: ["skills.example.com", "127.0.0.1:8000", "[::1]:8000"],
      apiKeys: [],
      rateLimitPerMinute: 600,
      trustProxyHops: 1,
      shedEventLoopDelayMs: 0,
      shedEventLoopUtilization: 0.95,
      shedRssBytes: 512 * 1024 * 1024,
      requestTimeoutMs: 5000,
      keepAliveTimeoutMs: 620_000,
      maxBodyBytes: 131_072,
    });
    expect(config.shutdownDrainMs).toBe(0);
  });

  it("joins API_KEYS and the lines of API_KEYS_FILE, skipping blanks and comments", () => {
    const files = filesOf({
      "/work/keys": "# n8n\nkey-from-file-0123456789\n\n  second-key-0123456789  \r\n",
    });
    expect(
      configOf({ API_KEYS: "key-from-env-0123456789", API_KEYS_FILE: "keys" }, [], files).http.apiKeys,
    ).toEqual(["key-from-env-0123456789", "key-from-file-0123456789", "second-key-0123456789"]);
  });

  it("refuses bad values in one message, never echoing a key", () => {
    const load = () =>
      configOf({
        ALLOWED_ORIGINS: "https://ok.example.com,example.com,https://x.example.com/path",
        ALLOWED_HOSTS: "bad host",
        API_KEYS: "sh0rt-secret",
        API_KEYS_FILE: "/nonexistent/keys",
        RATE_LIMIT_PER_MINUTE: "-1",
        SHED_EVENT_LOOP_UTILIZATION: "2",
        MAX_BODY_BYTES: "1e9",
        SHUTDOWN_DRAIN_MS: "soon",
      });
    expect(load).toThrow(ConfigError);
    let message = "";
    try {
      load();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split("; ")).toEqual([
      'ALLOWED_ORIGINS entry "example.com" is not an origin (scheme://host[:port], e.g. https://app.example.com)',
      'ALLOWED_ORIGINS entry "https://x.example.com/path" is not an origin (scheme://host[:port], e.g. https://app.example.com)',
      'ALLOWED_HOSTS entry "bad host" is not a host or host:port (e.g. skills.example.com)',
      "API_KEYS item 1 is not a valid key (at least 16 visible ASCII characters, no spaces)",
      "API_KEYS_FILE /nonexistent/keys cannot be read: there is no such file (ENOENT)",
      'RATE_LIMIT_PER_MINUTE "-1" is not a whole number from 0 to 1000000',
      'SHED_EVENT_LOOP_UTILIZATION "2" is not a number from 0 to 1',
      'MAX_BODY_BYTES "1e9" is not a whole number from 1024 to 16777216',
      'SHUTDOWN_DRAIN_MS "soon" is not a whole number from 0 to 60000',
    ]);
    expect(message).not.toContain("sh0rt-secret");
  });

  // Number() reads hexadecimal, binary and exponents: PORT=0x1F40 served on 8000, PORT=1e3 on 1000. The
  // refusal says how to write the value: "not a number from 0 to 1" of ".5" was false, and left the user
  // looking for what was wrong.
  it.each([
    ["PORT", "0x1F40", 'PORT "0x1F40" is not written in decimal digits: write 8000'],
    ["PORT", "1e3", 'PORT "1e3" is not written in decimal digits: write 1000'],
    ["SHUTDOWN_DRAIN_MS", "0b11", 'SHUTDOWN_DRAIN_MS "0b11" is not written in decimal digits: write 3'],
    [
      "SHED_EVENT_LOOP_UTILIZATION",
      ".5e0",
      'SHED_EVENT_LOOP_UTILIZATION ".5e0" is not written in decimal digits: write 0.5',
    ],
    [
      "SHED_EVENT_LOOP_UTILIZATION",
      ".5",
      'SHED_EVENT_LOOP_UTILIZATION ".5" is not written in decimal digits: write 0.5',
    ],
    ["MAX_BODY_BYTES", "1e4", 'MAX_BODY_BYTES "1e4" is not written in decimal digits: write 10000'],
    // Out of range however it is written: the range alone is what to fix.
    ["MAX_BODY_BYTES", "1e3", 'MAX_BODY_BYTES "1e3" is not a whole number from 1024 to 16777216'],
    ["PORT", "0x10000", 'PORT "0x10000" is not a port number (0-65535)'],
  ])("refuses %s=%s, a number only as JavaScript writes it", (name, value, problem) => {
    expect(() => configOf({ [name]: value })).toThrow(problem);
  });

  it("reads numbers as people write them", () => {
    const config = configOf({ PORT: " 8080 ", SHED_EVENT_LOOP_UTILIZATION: "0.75" });
    expect(config.port).toBe(8080);
    expect(config.http.shedEventLoopUtilization).toBe(0.75);
  });

  it("documents every setting and option in --help, with its default", () => {
    for (const [name, declared] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
      expect(USAGE).toMatch(new RegExp(`\\n  ${name} +\\S`));
      if (declared.default !== undefined) expect(USAGE).toContain(`(default ${declared.default})`);
    }
    const synopsis = USAGE.split("\n", 1)[0];
    for (const [name, option] of Object.entries(OPTIONS)) {
      expect(synopsis).toContain(`--${name}`);
      expect(USAGE).toContain(`\n  ${option.shown} `);
    }
    expect(USAGE.split("\n").filter((line) => line.length > 110)).toEqual([]);
  });
});

describe("the README's settings tables", () => {
  /** The rows of the tables under "## Configuration": variable, default cell and meaning cell. */
  function readmeRows(): [name: string, defaultCell: string, meaning: string][] {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf("\n## Configuration\n");
    const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
    return [...section.matchAll(/^\| `([A-Z_]+)` \| ([^|]*) \| (.*) \|$/gm)].map((match) => [
      match[1] ?? "",
      (match[2] ?? "").trim(),
      match[3] ?? "",
    ]);
  }

  // Only KEEP_ALIVE_TIMEOUT_MS said what it accepts: a MAX_BODY_BYTES of 512 or a TRUST_PROXY of 20 was
  // found out by the refusal at startup.
  it("give each number setting the values it is read in, as --help does", () => {
    const checked: string[] = [];
    for (const [name, , meaning] of readmeRows()) {
      const range = (SETTINGS as Record<string, Setting<unknown>>)[name]?.range;
      if (range === undefined) continue;
      checked.push(name);
      const said = `from ${range.min} to ${range.max}`;
      expect({ name, readme: meaning.toLowerCase().includes(said) }).toEqual({ name, readme: true });
      expect({ name, usage: USAGE.replaceAll(/\s+/g, " ").includes(said) }).toEqual({ name, usage: true });
    }
    expect(checked).toEqual(expect.arrayContaining(["TRUST_PROXY", "MAX_BODY_BYTES", "SHUTDOWN_DRAIN_MS"]));
  });

  it("list exactly the settings the server reads, each once", () => {
    const names = readmeRows().map(([name]) => name);
    expect(names).toEqual(Object.keys(SETTINGS));
  });

  it("give each setting the default the server takes", () => {
    for (const [name, cell] of readmeRows()) {
      const declared = (SETTINGS as Record<string, Setting<unknown>>)[name];
      if (declared?.default === undefined) continue;
      expect({ name, default: cell.startsWith(`\`${declared.default}\``) }).toEqual({ name, default: true });
    }
  });
});
