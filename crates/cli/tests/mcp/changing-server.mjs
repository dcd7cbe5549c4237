// An MCP server whose tools change while it runs, for catui's MCP client
// tests (crates/cli/tests/mcp_servers.rs): calling `add_tool` registers
// `late_tool`, and the official SDK then sends
// `notifications/tools/list_changed`. Stdio transport.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "changing", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });

server.registerTool(
  "add_tool",
  { description: "Adds the tool late_tool to this server." },
  async () => {
    server.registerTool(
      "late_tool",
      { description: "A tool that did not exist when the server started." },
      async () => text("late tool ran"),
    );
    return text("added late_tool");
  },
);

await server.connect(new StdioServerTransport());
