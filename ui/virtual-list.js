// A windowed list: only the rows in view (plus a margin) exist in the DOM, so 10k memories
// scroll and filter without a freeze. Items may have different fixed heights (group headers
// are shorter than rows); offsets are computed once per data change.

import { h } from './dom.js';

export class VirtualList {
  constructor({ className = '', testid, heightOf, render, overscan = 8 }) {
    this.heightOf = heightOf;
    this.render = render;
    this.overscan = overscan;
    this.items = [];
    this.offsets = [0];
    this.spacer = h('div', { class: 'vlist-spacer' });
    this.el = h('div', { class: `vlist ${className}`, testid }, this.spacer);
    this.el.addEventListener('scroll', () => this.paint());
    new ResizeObserver(() => this.paint()).observe(this.el);
  }

  setItems(items) {
    this.items = items;
    this.offsets = new Array(items.length + 1);
    this.offsets[0] = 0;
    for (let i = 0; i < items.length; i++) this.offsets[i + 1] = this.offsets[i] + this.heightOf(items[i]);
    this.spacer.style.height = `${this.offsets[items.length]}px`;
    this.paint();
  }

  indexAt(y) {
    let lo = 0, hi = this.items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= y) lo = mid; else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  paint() {
    const top = this.el.scrollTop;
    const height = this.el.clientHeight || 600;
    const first = Math.max(0, this.indexAt(top) - this.overscan);
    const last = Math.min(this.items.length, this.indexAt(top + height) + 1 + this.overscan);
    const rows = [];
    for (let i = first; i < last; i++) {
      const row = this.render(this.items[i], i);
      row.style.transform = `translateY(${this.offsets[i]}px)`;
      row.style.height = `${this.heightOf(this.items[i])}px`;
      rows.push(row);
    }
    this.spacer.replaceChildren(...rows);
  }

  scrollToIndex(i) {
    if (i < 0 || i >= this.items.length) return;
    const top = this.offsets[i];
    const bottom = this.offsets[i + 1];
    const view = this.el.clientHeight;
    if (top < this.el.scrollTop + 28) this.el.scrollTop = Math.max(0, top - 28);
    else if (bottom > this.el.scrollTop + view) this.el.scrollTop = bottom - view;
    this.paint();
  }
}
