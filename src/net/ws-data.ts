import type { RawData } from 'ws';

/** A WebSocket message's bytes as one Buffer, whichever of its shapes `ws` handed over. */
export function messageBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
