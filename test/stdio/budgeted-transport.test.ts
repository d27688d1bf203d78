import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { ByteBudget } from "../../src/budget/index.js";
import { BudgetedTransport } from "../../src/stdio/budgeted-transport.js";

const MiB = 1024 * 1024;

/** stdio's wire as the server sees it: what the client sent, and answers that leave only when `flush` says. */
class SlowReader implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly pending: (() => void)[] = [];
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  send(): Promise<void> {
    return new Promise((written) => this.pending.push(written));
  }
  /** The client reads the oldest answer still waiting to be written. */
  flush(): void {
    this.pending.shift()?.();
  }
}

function setUp() {
  const wire = new SlowReader();
  const budget = new ByteBudget(8 * MiB);
  // Each read weighs 7 MiB; anything else nothing.
  const transport = new BudgetedTransport(wire, budget, (method) =>
    method === "resources/read" ? 7 * MiB : 0,
  );
  const handedOn: JSONRPCMessage[] = [];
  transport.onmessage = (message) => {
    handedOn.push(message);
    // The server answers at once; the answer is written once the client reads it.
    if ("id" in message && "method" in message) {
      void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  };
  const send = (message: JSONRPCMessage) => wire.onmessage?.(message);
  // Every promise the transport chains has run by the next turn of the event loop.
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { wire, budget, transport, handedOn, send, settled };
}

const read = (id: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  method: "resources/read",
  params: { uri: "skill://big/seven.bin" },
});

describe("stdio's answers holding files", () => {
  // Regression: over stdio every request was answered at once and every answer queued for stdout, so a
  // client that sent 200 reads of an 8 MiB file and read slowly (or not at all) took the server to 3 GB.
  it("are made one budget at a time: a read waits until the answers before it are written", async () => {
    const { wire, budget, transport, handedOn, send, settled } = setUp();
    await transport.start();
    for (let id = 1; id <= 20; id++) send(read(id));
    await settled();
    expect(handedOn.map((message) => ("id" in message ? message.id : undefined))).toEqual([1]);
    wire.flush();
    await settled();
    expect(handedOn).toHaveLength(2);
    for (let i = 0; i < 18; i++) {
      wire.flush();
      await settled();
    }
    expect(handedOn).toHaveLength(20);
    expect(budget.peak).toBe(7 * MiB);
  });

  it("keep the order of messages, and a cancelled read gives its share back", async () => {
    const { transport, handedOn, send, settled } = setUp();
    await transport.start();
    send(read(1));
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    send(read(3));
    await settled();
    expect(handedOn.map((message) => ("id" in message ? message.id : "cancelled"))).toEqual([
      1,
      2,
      "cancelled",
      3,
    ]);
  });

  it("are all given back when the connection closes", async () => {
    const { budget, transport, send, settled } = setUp();
    await transport.start();
    send(read(1));
    await settled();
    await transport.close();
    await expect(budget.take(8 * MiB)).resolves.toBeTypeOf("function");
  });
});

describe("stdio's messages waiting to be handed on", () => {
  it("stop the reading of stdin at a bound, which starts again once half of them are handed on", async () => {
    const wire = new SlowReader();
    const input = { pauses: 0, resumes: 0, pause: () => input.pauses++, resume: () => input.resumes++ };
    // Every request weighs the whole budget: each waits until the answer before it is written.
    const transport = new BudgetedTransport(wire, new ByteBudget(8 * MiB), () => 8 * MiB, input, 4);
    transport.onmessage = (message) => {
      if ("id" in message && "method" in message)
        void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
    };
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    await transport.start();
    for (let id = 1; id <= 5; id++) wire.onmessage?.(read(id));
    await settled();
    // The first handed on, four waiting.
    expect(input).toMatchObject({ pauses: 1, resumes: 0 });
    wire.flush();
    await settled();
    expect(input).toMatchObject({ pauses: 1, resumes: 0 });
    wire.flush();
    await settled();
    expect(input).toMatchObject({ pauses: 1, resumes: 1 });
  });
});

describe("stdio's long messages waiting to be handed on", () => {
  // Regression: only their count stopped the reading of stdin, at 1,024: a client that sent requests on
  // lines of 10 MiB without reading the answers had each kept (60 took 800 MiB; 1,024 would take 13 GB).
  it("stop the reading of stdin once their lines hold 16 MiB, and start it again at half", async () => {
    const wire = new SlowReader();
    const input = {
      pauses: 0,
      resumes: 0,
      current: undefined as Buffer | undefined,
      pause: () => input.pauses++,
      resume: () => input.resumes++,
    };
    const transport = new BudgetedTransport(wire, new ByteBudget(8 * MiB), () => 8 * MiB, input);
    transport.onmessage = (message) => {
      if ("id" in message && "method" in message)
        void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
    };
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    await transport.start();
    // Read as InputLines reads them: each message while its line is the current one.
    const receive = (id: number) => {
      input.current = Buffer.alloc(6 * MiB);
      wire.onmessage?.(read(id));
      input.current = undefined;
    };
    receive(1);
    receive(2);
    await settled();
    // The first handed on, the second waiting.
    receive(3);
    await settled();
    // Two lines of 6 MiB waiting, far fewer messages than the 1,024 that stop it.
    expect(input).toMatchObject({ pauses: 0, resumes: 0 });
    receive(4);
    await settled();
    expect(input).toMatchObject({ pauses: 1, resumes: 0 });
    // The second handed on: 12 MiB still waiting.
    wire.flush();
    await settled();
    expect(input).toMatchObject({ pauses: 1, resumes: 0 });
    wire.flush();
    await settled();
    expect(input).toMatchObject({ pauses: 1, resumes: 1 });
  });
});

describe("stdio's answers to lines that are no message", () => {
  // Regression: they were written at once, past the budget: 30,000 requests of the wrong shape from a
  // client that did not read took 82 MiB of answers waiting for stdout.
  it("wait their turn and their share of the budget, as the server's answers do", async () => {
    const { wire, transport, handedOn, send, settled } = setUp();
    await transport.start();
    send(read(1));
    transport.answer({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }, 7 * MiB);
    send(read(3));
    await settled();
    // The answer to read 1 waits to be written; ours waits for the budget, and read 3 behind it.
    expect([wire.pending.length, handedOn.length]).toEqual([1, 1]);
    wire.flush();
    await settled();
    expect([wire.pending.length, handedOn.length]).toEqual([1, 1]);
    wire.flush();
    await settled();
    expect([wire.pending.length, handedOn.length]).toEqual([1, 2]);
  });
});
