/**
 * The operators of a ConditionGroup's operator objects (the Agent Format's "ConditionGroup"), e.g.
 * `{ gte: 0.8 }`: part of the payload language, so the compiler checks them and
 * src/orchestration/conditions.ts evaluates them from this one list. Pure.
 */
export const CONDITION_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'contains', 'exists', 'matches'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
