import { Socket } from 'node:net';

/** Bytes a relay reads at once: HAProxy's default buffer size (`tune.bufsize`). */
const RELAY_BUFFER = 16 * 1024;
/** Buffers of closed connections kept for the next ones: at most 16 MB. */
const KEEP_BUFFERS = 1024;
const kept: Buffer[] = [];

/**
 * `Socket#_writeGeneric`: the socket's own write, under the Writable stream
 * machinery (its queue, and a nextTick for every write's callback) that a
 * relay does not need, having at most one write in flight. Skipping it
 * saved a sixth of the relay's user-space CPU per request. The callback
 * comes before it returns when the kernel took the whole chunk. It is
 * Node-internal; without it the public `write` serves, its callback a tick later.
 */
type Write = (this: Socket, writev: false, data: Buffer, encoding: 'buffer', cb: (err?: Error | null) => void) => void;
const writeGeneric = (Socket.prototype as unknown as { _writeGeneric?: Write })._writeGeneric;
const writeNow: Write = writeGeneric ?? function (this: Socket, _writev, data, _encoding, cb) {
  this.write(data, cb);
};

/**
 * One direction of a relayed connection, given as the `onread` of the
 * socket it reads: that socket reads into this relay's one buffer (nothing
 * allocated per read, where a socket left to itself allocates 64 KB each
 * time), and each chunk is written on at once. A write the kernel did not
 * take whole still points into the buffer, so reading stops until it is
 * done; that is also the backpressure. 16 KB per direction while the
 * connection is open.
 */
export class Relay {
  readonly buffer = kept.pop() ?? Buffer.allocUnsafe(RELAY_BUFFER);
  private from!: Socket;
  private to!: Socket;
  /** A write from the buffer is not done yet. */
  private inFlight = false;
  /** Reading stopped for it. */
  private stopped = false;

  /** Starts relaying what `from` reads to `to`; the end of `from`'s input is passed on as a FIN. */
  between(from: Socket, to: Socket): void {
    this.from = from;
    this.to = to;
    from.on('end', () => to.end());
    // Flowing, or 'end' would never come: the data itself does not go through the stream.
    from.resume();
  }

  /** The connection is closed: its buffer serves a new one, unless a write may still point into it. */
  release(): void {
    if (!this.inFlight && kept.length < KEEP_BUFFERS) kept.push(this.buffer);
  }

  /** `onread`: `bytes` were read into the buffer. False stops reading. */
  readonly callback = (bytes: number): boolean => {
    this.inFlight = true;
    // 'buffer', as the Writable machinery would say: any other encoding makes Node copy the chunk first.
    writeNow.call(this.to, false, this.buffer.subarray(0, bytes), 'buffer', this.written);
    this.stopped = this.inFlight;
    return !this.stopped;
  };

  /** Errors are the sockets' own ('error', then both close): here the buffer is free again either way. */
  private readonly written = (): void => {
    this.inFlight = false;
    if (!this.stopped) return;
    this.stopped = false;
    this.from.resume();
  };
}
