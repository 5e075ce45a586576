/** The local OpenAI-compatible test server, shipped in the package's /testing entry (src/testing/openai-server.ts). */
export * from '../../src/testing/openai-server';
