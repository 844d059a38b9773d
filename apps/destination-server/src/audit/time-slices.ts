import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Hands the event loop back every `budgetMs` of work: a run at 50k pods compares thousands of
 * subscriptions and loads tens of thousands of objects, which in one piece held Get streams'
 * updates back for seconds. `pause()` between items is cheap until the budget is spent.
 */
export class TimeSlices {
  #sliceStart = performance.now();

  constructor(private readonly budgetMs = 10) {}

  async pause(): Promise<void> {
    if (performance.now() - this.#sliceStart < this.budgetMs) return;
    await nextTurn();
    this.#sliceStart = performance.now();
  }
}
