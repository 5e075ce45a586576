/** The application's own activities, registered on the same worker as Agentloom's. */
import { shipOrder } from './orders';

export async function markShipped(orderId: string, carrier: string): Promise<string> {
  const order = shipOrder(orderId, carrier);
  return `${order.order_id} (${order.item}) shipped with ${carrier}`;
}
