/** One listener's registration. Calls still queued for it are dropped once it ends. */
export interface Subscription<L> {
  readonly listener: L;
  active: boolean;
}

export function newSubscription<L>(listener: L): Subscription<L> {
  return { listener, active: true };
}
