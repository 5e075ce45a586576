/**
 * A tool written in code: the registry's tools/lookup_order.tool.md declares it (`kind: code`,
 * `code: { name: lookup_order }`) and the worker runs it through AgentloomPlugin's `tools`.
 * The zod schema parses the model's arguments before `execute` sees them; it is the declaration's
 * `input_schema` (strict: `additionalProperties: false`), which the Agentloom test checks.
 */
import { defineTool } from '@agentloom/core';
import { z } from 'zod/v4';
import { findOrder, refundOrder as refund } from './orders';

export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Look an order up by its id and say where it is.',
  input: z.object({ order_id: z.string().regex(/^A-\d+$/).describe('The order id, e.g. A-42.') }).strict(),
  execute: ({ order_id }) => findOrder(order_id) ?? { order_id, status: 'unknown order' },
});

/**
 * A tool that changes the world, so a human approves each call before it runs (`approvalRequired`,
 * written as `approval_required: true` in tools/refund_order.tool.md): the run waits, and the
 * client approves the pending call (AgentloomClient.approve).
 */
export const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refund an order (a person approves each refund first).',
  input: z.object({ order_id: z.string().regex(/^A-\d+$/).describe('The order id, e.g. A-42.') }).strict(),
  sideEffects: true,
  approvalRequired: true,
  execute: ({ order_id }) => refund(order_id),
});

/** Every tool the worker registers: the worker runs them, the client compiles with them known. */
export const TOOLS = [lookupOrder, refundOrder];
