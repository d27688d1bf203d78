import net from "node:net";

/**
 * A TCP port of 127.0.0.1 that nothing listens on now: the bench, the soak and the process tests start
 * servers on it. Another process could take it before they do; on a test machine that is rare enough.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("no port was given"))));
    });
  });
}
