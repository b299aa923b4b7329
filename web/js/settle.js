// Which lab.set calls are still on their way, and when the page is settled:
// no call unsettled and every panel drawn (those a change left for a moment
// later too, offscreen.js). The page marks <body data-busy> meanwhile (its
// onBusy), and lab.settled() resolves once it is over: for tests and for
// embedding pages that drive the controls and wait for the result. The
// unsettled partials, in order, also say where the reader is heading
// (heading()). No DOM here: node --test runs it as it is.
export class Settling {
  // drawing(): whether panels are still to be drawn; onBusy(busy): the page's mark.
  constructor(drawing, onBusy = () => {}) {
    this.drawing = drawing;
    this.onBusy = onBusy;
    this.requested = [];
    this.waiting = []; // resolvers of settled()
  }

  // The promise of a lab.set call that applies `partial`, tracked until it settles.
  track(promise, partial) {
    this.requested.push(partial);
    this.onBusy(true);
    const done = () => {
      this.requested.splice(this.requested.indexOf(partial), 1);
      this.check();
    };
    promise.then(done, done);
    return promise;
  }

  get busy() {
    return this.requested.length > 0 || this.drawing();
  }

  // Called when a call settles or the last panel is drawn.
  check() {
    if (this.busy) return;
    this.onBusy(false);
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  // Resolves once settled: what reads the page (a link copied, a snippet, a
  // print, an export) waits for a change still on its way, such as a
  // field's value, sent when the button's press took focus.
  settled() {
    return this.busy ? new Promise((resolve) => this.waiting.push(resolve)) : Promise.resolve();
  }

  // The state the page is heading to: `state` (on screen) with the
  // unsettled partials applied. The controls compute «one step more» from
  // it, so clicks faster than Python's replies all count (two clicks on
  // «Paso siguiente» go two steps, two «Añadir» add two words).
  heading(state) {
    if (!state) return null;
    const next = structuredClone(state);
    for (const partial of this.requested) Object.assign(next, structuredClone(partial));
    return next;
  }
}
