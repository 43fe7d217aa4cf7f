/**
 * The floor of figure 19: the least an MCP server on stdio can be with the SDK unified-exec uses — one tool with a
 * zod schema, connected at once. What a client waits for from any SDK server before it can list tools.
 *
 * Figure 12's floor is its second tool, `reply`: it answers at once with a reply of write_stdin's shape under
 * --structured-output (the text, and the structured fields, which an outputSchema declares and the client checks),
 * so a round trip through it is what the client, the pipes and the SDK cost, without a manager or a terminal.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'minimal', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Answers with its text.', inputSchema: z.object({ text: z.string() }) },
  ({ text }) => ({
    content: [{ type: 'text', text }],
  }),
);
server.registerTool(
  'reply',
  {
    description: "Answers at once with a reply shaped like write_stdin's.",
    inputSchema: z.object({ session_id: z.number(), chars: z.string(), yield_time_ms: z.number() }),
    outputSchema: z.object({
      chunk_id: z.string(),
      wall_time_seconds: z.number(),
      output: z.string(),
      original_token_count: z.number(),
      warnings: z.array(z.string()),
      session_id: z.number(),
      state: z.enum(['running', 'waiting_for_input']),
    }),
  },
  ({ session_id, chars }) => {
    const output = `${chars}\nhi\r\n$ `;
    const structured = {
      chunk_id: 'a1b2c3',
      wall_time_seconds: 0.0004,
      output,
      original_token_count: Math.ceil(output.length / 4),
      warnings: [],
      session_id,
      state: 'waiting_for_input',
    };
    const text = `Chunk ID: a1b2c3\nWall time: 0.0004 seconds\nProcess running with session ID ${session_id}\nOriginal token count: ${structured.original_token_count}\nOutput:\n${output}`;
    return { content: [{ type: 'text', text }], structuredContent: structured };
  },
);
await server.connect(new StdioServerTransport());
