import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";

/**
 * A transport standing between the SDK's server and `inner`, handing on as it is whatever it does not
 * change: each subclass says what it does with a message received, and may do more on send or close.
 */
export abstract class ForwardingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(protected readonly inner: Transport) {}

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => this.received(message, extra);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.closed();
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };

  /** A message from the client: handed on to `onmessage`, or not. */
  protected abstract received(message: JSONRPCMessage, extra?: MessageExtraInfo): void;

  /** The client's side closed. */
  protected closed(): void {
    this.onclose?.();
  }
}
