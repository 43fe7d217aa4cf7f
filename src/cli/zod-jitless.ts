// Imported first by main.ts, before any schema is built (zod reads the setting when it builds an object schema): the
// CLI's schemas, and the MCP SDK's, then check values without compiling a parser of their own on their first use.
// That compiling (code generated per object schema, run through `new Function`) stood before the first answers, and
// a server checks each schema too few times to earn it back. The checks, and their errors, are the same.
import { config } from 'zod';

config({ jitless: true });
