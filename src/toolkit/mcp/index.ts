/** The client side of MCP: configurations, the client, MCPTool and the sandbox stdio transport. */
export * from "./config.js";
export { mcpContentToBlocks } from "./convert.js";
export * from "./mcp-client.js";
export * from "./mcp-tool.js";
export { type SandboxStdioParams, SandboxStdioTransport } from "./sandbox-stdio-transport.js";
