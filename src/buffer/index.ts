export { HeadTailBuffer, OUTPUT_MAX_BYTES, type DrainedOutput } from './head-tail-buffer.js';
export { Utf8StreamDecoder, decodeDrained } from './utf8-decoder.js';
export { approxTokenCount, countLines, truncateForModel, type TruncationResult } from './truncate.js';
