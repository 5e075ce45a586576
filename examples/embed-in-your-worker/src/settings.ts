/** What the worker and the client share: the application's one task queue and the registry folder. */
import * as path from 'path';

export const TASK_QUEUE = process.env.ORDERS_TASK_QUEUE ?? 'orders';

/** The project folder (agents/, models/, roles/, tools/): compiled code runs from dist/src/, two levels below it. */
export const REGISTRY = process.env.LOOM_REGISTRY ?? path.resolve(__dirname, '..', '..');
