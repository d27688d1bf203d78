/**
 * Whether this replica should receive new traffic. Shutdown flips it first, so `/health` fails and load
 * balancers stop routing here while requests already on their way are still served.
 */
export class Readiness {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  drain(): void {
    this.#draining = true;
  }
}
