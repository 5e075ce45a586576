/**
 * The client side of AgentloomPlugin: `new Client({ plugins: [new AgentloomClientPlugin()] })` sets
 * the data converter Agentloom's workers use (the LOOM_CODEC_KEY codec, or the `codec` given) and
 * nothing else, so a client process never loads the activities or the worker. The worker-side
 * AgentloomPlugin sets the same converter on a Client too.
 */
import { SimplePlugin } from '@temporalio/plugin';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { FAILURE_CONVERTER_PATH, loomDataConverter } from '../codec/data-converter';
import { temporalClientInterceptors } from '../telemetry/temporal-tracing';

export interface DataConverterChoice {
  /** The payload codec (failures encoded too, so the codec covers their messages). Default: the LOOM_CODEC_KEY codec when set. */
  codec?: PayloadCodec;
  /** A whole data converter instead (wins over `codec`); `null`: Temporal's default, whatever the environment says. */
  dataConverter?: DataConverter | null;
}

/** The data converter a choice names (undefined: Temporal's default). */
export function agentloomDataConverter(choice: DataConverterChoice = {}): DataConverter | undefined {
  if (choice.dataConverter === null) return undefined;
  if (choice.dataConverter) return choice.dataConverter;
  if (choice.codec) return { payloadCodecs: [choice.codec], failureConverterPath: FAILURE_CONVERTER_PATH };
  return loomDataConverter();
}

export class AgentloomClientPlugin extends SimplePlugin {
  constructor(choice: DataConverterChoice = {}) {
    // Temporal's client spans (StartWorkflow…), their trace context sent to the runs: src/telemetry/temporal-tracing.ts.
    super({ name: 'agentloom.AgentloomClientPlugin', dataConverter: agentloomDataConverter(choice), clientInterceptors: temporalClientInterceptors() });
  }
}
