/**
 * Tool answers as the MCP client receives them: the structured answer (checked by the SDK
 * against the tool's output schema) with its text, and failures as tool errors
 * (`isError: true`) whose text says why and what to do, so an assistant can tell the user.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../api';
import { CliError, isDeniedByAws } from '../exit-codes';

/** An answer: `text` defaults to the structured answer as JSON, which clients without structured output read. */
export function answer(structured: Record<string, unknown>, text?: string): CallToolResult {
  return {
    content: [{ type: 'text', text: text ?? JSON.stringify(structured, null, 2) }],
    structuredContent: structured,
  };
}

/** A failure a caller can act on (a bad cursor, a range too long): the text is the whole reason. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

const PERMISSION_HINT =
  'the MCP server reads with your own AWS credentials, which need execute-api:Invoke on the read API routes (GET /meetings…)';

/** Why a call failed, for the assistant: 404 says what is missing, 401/403 that access was denied. */
export function failureReason(error: unknown): string {
  if (error instanceof ApiError) {
    const reason = error.message.replace(/^\d+: /, '');
    if (error.status === 404) return `not found (404): ${reason}`;
    if (error.status === 401 || error.status === 403) return `denied (${error.status}): ${reason}; ${PERMISSION_HINT}`;
    if (error.status === 400) return `refused (400): ${reason}`;
    return `the read API failed (${error.status}): ${reason}; try again later`;
  }
  if (error instanceof ToolInputError || error instanceof CliError) return error.message;
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  if (isDeniedByAws(name))
    return `denied: ${name}: ${message}; refresh the AWS credentials the MCP server was started with (e.g. aws sso login), then restart it`;
  return `${name}: ${message}`;
}

export function toolError(error: unknown): CallToolResult {
  return { content: [{ type: 'text', text: failureReason(error) }], isError: true };
}

/** Runs a tool's work; any failure becomes a tool error instead of a protocol error or a crash. */
export async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return toolError(error);
  }
}
