/**
 * The execution loop (the Execution Loop specification) needs to know how a call ended (its dependants are skipped when it
 * failed) and, for calls with an `_outputPath`, the value to write into the run's State. Tool
 * results are claim-checked (stored message refs), so the workflow asks for them here — only for
 * calls that have dependants or write State.
 */
import type { JsonValue } from '../compiled/types';
import type { BlobRef } from '../shared/contract';
import type { MessageStore } from './message-store';
import { stateShape } from '../runtime/ephemeral-args';

export interface ToolOutcome {
  is_error: boolean;
  /** The result text parsed as JSON when it is JSON, else the text itself. */
  value: JsonValue;
}

export function createExecutionStateActivities(deps: { messages: MessageStore }) {
  return {
    async readToolOutcome(ref: BlobRef): Promise<ToolOutcome> {
      const msg = await deps.messages.getLoose(ref);
      const value = parseValue(msg.content);
      // An ephemeral run's history gets the result's shape, not its values.
      const ephemeral = (await deps.messages.salt()) !== undefined;
      return { is_error: msg.is_error === true, value: ephemeral ? stateShape(value) : value };
    },
  };
}

function parseValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
