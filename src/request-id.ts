import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The id of the HTTP request whose answer is being made (Fastify's `reqId`, which its request line has), for
 * the lines its work writes through the process's logger: a `tool failed` line without it could not be
 * tied to the request it failed. Over stdio there is none.
 */
const requestIds = new AsyncLocalStorage<string>();

/** Runs `work` as the work of the request `id`. */
export function asRequest<T>(id: string, work: () => T): T {
  return requestIds.run(id, work);
}

/** The id of the request whose work this is, if any. */
export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}
