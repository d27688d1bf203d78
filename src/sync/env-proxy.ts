import { Agent, type Dispatcher, EnvHttpProxyAgent } from "undici";

/**
 * A pool of connections of its own that goes where Node's global fetch would: through the proxy that
 * `HTTP_PROXY`/`HTTPS_PROXY` name (`NO_PROXY` excepted) when Node is told to use them, else straight on.
 */
export function ownPool(env: NodeJS.ProcessEnv, execArgv: readonly string[]): Dispatcher {
  return usesEnvProxy(env, execArgv) ? new EnvHttpProxyAgent() : new Agent();
}

/**
 * Whether Node (22.21 and 24.5 on) sends its global fetch through the environment's proxy, as Node 24.22,
 * 22.21 and 22.23 decide it: `--use-env-proxy` or `--no-use-env-proxy`, the last given (NODE_OPTIONS, then
 * the command line), else `NODE_USE_ENV_PROXY=1`; and a proxy named. Read from the variables, not asked of
 * Node, so that a run on an older Node told so uses the proxy too: Node 20 and 22.20 send fetch straight on
 * whatever NODE_USE_ENV_PROXY says, and refuse the flag as they start ("bad option"), before sync runs.
 */
export function usesEnvProxy(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  const named = [env.HTTP_PROXY, env.HTTPS_PROXY, env.http_proxy, env.https_proxy].some(
    (value) => value !== undefined && value !== "",
  );
  if (!named) return false;
  const flags = [...nodeOptionsArgs(env.NODE_OPTIONS ?? ""), ...execArgv].map(optionName);
  const last = flags.findLast((flag) => flag === "--use-env-proxy" || flag === "--no-use-env-proxy");
  return last === undefined ? env.NODE_USE_ENV_PROXY === "1" : last === "--use-env-proxy";
}

/** A proxy from the environment: its URL without any user and password, and the variable that names it. */
export interface EnvProxy {
  readonly url: string;
  /** Its host and port, or the URL itself where it is none undici could use. */
  readonly host: string;
  readonly variable: string;
  /** Whether the variable's URL holds a user or password. */
  readonly credentials: boolean;
}

/**
 * The proxy that sync's requests to `url` go through, picked as undici's EnvHttpProxyAgent picks it:
 * http_proxy/HTTP_PROXY, for https URLs https_proxy/HTTPS_PROXY first; none for a host NO_PROXY names.
 */
export function proxyFor(
  url: URL,
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
): EnvProxy | undefined {
  if (!usesEnvProxy(env, execArgv)) return undefined;
  const named = (names: readonly string[]) => names.find((name) => env[name] !== undefined);
  const http = named(["http_proxy", "HTTP_PROXY"]);
  const https = named(["https_proxy", "HTTPS_PROXY"]);
  const variable = url.protocol === "https:" && https !== undefined && env[https] !== "" ? https : http;
  const value = variable === undefined ? undefined : env[variable];
  if (variable === undefined || value === undefined || value === "" || noProxy(url, env)) return undefined;
  const parsed = URL.parse(value);
  if (parsed === null || !/^https?:$/.test(parsed.protocol)) {
    // One undici refuses (no scheme, or another): shown as given, but for any user and password.
    const url = value.replace(/^([a-z][a-z\d+.-]*:\/\/)?[^/@]*@/i, "$1");
    return { url, host: url, variable, credentials: url !== value };
  }
  const credentials = parsed.username !== "" || parsed.password !== "";
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.href, host: parsed.host, variable, credentials };
}

/** Whether no_proxy/NO_PROXY exempts `url`'s host from the proxy, as undici reads it. */
function noProxy(url: URL, env: NodeJS.ProcessEnv): boolean {
  const value = env.no_proxy ?? env.NO_PROXY ?? "";
  if (value === "*") return true;
  const host = url.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === "https:" ? 443 : 80);
  return value
    .split(/[,\s]/)
    .filter((entry) => entry !== "")
    .some((entry) => {
      const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
      const exempt = name.replace(/^\*?\./, "").toLowerCase();
      if (entryPort !== undefined && Number.parseInt(entryPort, 10) !== port) return false;
      return host === exempt || host.endsWith(`.${exempt}`);
    });
}

/**
 * NODE_OPTIONS split as Node splits it: at spaces (only) outside double quotes, the quotes dropped wherever
 * they stand, a backslash inside them escaping the character after it. A value Node refuses (an
 * unterminated quote) stops Node before sync runs.
 */
function nodeOptionsArgs(options: string): string[] {
  const args: string[] = [];
  let arg: string | undefined;
  let quoted = false;
  for (let index = 0; index < options.length; index++) {
    let char = options.charAt(index);
    if (char === "\\" && quoted) {
      index += 1;
      char = options.charAt(index);
    } else if (char === " " && !quoted) {
      if (arg !== undefined) args.push(arg);
      arg = undefined;
      continue;
    } else if (char === '"') {
      quoted = !quoted;
      continue;
    }
    arg = (arg ?? "") + char;
  }
  if (arg !== undefined) args.push(arg);
  return args;
}

/**
 * An option's name as Node reads it: without any `=value` (Node 24.22, 22.21 and 22.23 take
 * `--use-env-proxy=false` for `--use-env-proxy`), underscores taken for dashes.
 */
function optionName(arg: string): string {
  const name = arg.split("=", 1)[0] ?? arg;
  return name.startsWith("--") ? name.replaceAll("_", "-") : name;
}
