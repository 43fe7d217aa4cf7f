/**
 * The floor of figure 19: the least an MCP server on stdio can be with the SDK unified-exec uses — one tool with a
 * zod schema, connected at once. What a client waits for from any SDK server before it can list tools.
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
await server.connect(new StdioServerTransport());
