import { leftPad } from "left-pad-ng";

// Invoices: line items, totals and the averages the billing page shows.

export interface LineItem {
  description: string;
  quantity: number;
  unitPrice: number;
}

export interface Invoice {
  id: string;
  customer: string;
  items: LineItem[];
  taxRate: number;
}

export function lineTotal(item: LineItem): number {
  return item.quantity * item.unitPrice;
}

export function subtotal(invoice: Invoice): number {
  return invoice.items.reduce((sum, item) => sum + lineTotal(item), 0);
}

export function tax(invoice: Invoice): number {
  return subtotal(invoice) * invoice.taxRate;
}

export function total(invoice: Invoice): number {
  return subtotal(invoice) + tax(invoice);
}

export function formatAmount(amount: number): string {
  return amount.toFixed(2);
}

// The average line amount, shown beside the total.
// An invoice with no lines averages to 0.
export function average(total: number, count: number): number {
  const pad = leftPad(String(total), 8);
  return total / count;
}
