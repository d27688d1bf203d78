// Turns { customer: { first, last }, orders: [...] } into one flat record per order.
export function reshape(input) {
  const name = `${input.customer.first} ${input.customer.last}`.trim();
  return input.orders.map((order) => ({
    customer_name: name,
    order_id: String(order.id),
    total_cents: Math.round(Number(order.total) * 100),
    ordered_at: new Date(order.date).toISOString(),
  }));
}
