/**
 * The application's own data: an order table (in memory here, a database in a real application),
 * read and written by the application's own activity and read by the agent's tool.
 */
export interface Order { order_id: string; item: string; status: 'packed' | 'shipped' | 'refunded'; carrier?: string }

const ORDERS = new Map<string, Order>([
  ['A-42', { order_id: 'A-42', item: 'a blue teapot', status: 'packed' }],
  ['A-43', { order_id: 'A-43', item: 'two mugs', status: 'packed' }],
]);

export function findOrder(orderId: string): Order | undefined {
  return ORDERS.get(orderId);
}

export function shipOrder(orderId: string, carrier: string): Order {
  const order = ORDERS.get(orderId);
  if (!order) throw new Error(`no order ${orderId}`);
  order.status = 'shipped';
  order.carrier = carrier;
  return order;
}

export function refundOrder(orderId: string): Order {
  const order = ORDERS.get(orderId);
  if (!order) throw new Error(`no order ${orderId}`);
  order.status = 'refunded';
  return order;
}
