// The page's life, one named phase at a time, with every transition here:
//
//   painting ──► booting ──► confirming ──► live
//                  │  ▲          │           │
//                  ▼  │          ▼           ▼
//                  fault ◄───────┴───────────┘
//
//   painting    the first view (a prepared one) is being looked up and drawn;
//               Python's download has not started.
//   booting     Python downloads and starts; prepared views answer the
//               selects, any other change waits, marked pending.
//   confirming  Python is live (lab.ready has resolved, the page shows the
//               URL's prepared view) and its own first view of that state is
//               on its way: changes still use prepared views or wait, since a
//               request sent now would queue behind that view.
//   live        Python answers every change (batched: batch.js).
//   fault       the boot failed, with its message and «Reintentar», which
//               boots again («booting»); a prepared view stays usable.
//
// <html data-phase> says the phase (for styles and scripts). No DOM is needed
// otherwise: node --test checks the transitions.

const NEXT = {
  painting: ["booting", "fault"],
  booting: ["confirming", "live", "fault"],
  confirming: ["live", "fault"],
  live: ["fault"],
  fault: ["booting"],
};

export class Session {
  constructor(onPhase = () => {}) {
    this.phase = "painting";
    this.onPhase = onPhase;
    this.fault = null; // the boot's error, while the phase is «fault»
    this.attempts = 0; // failed boots, for «Ha vuelto a fallar (intento n)»
    onPhase(this.phase);
  }

  to(phase, error = null) {
    if (!NEXT[this.phase].includes(phase)) {
      throw new Error(`the page cannot go from "${this.phase}" to "${phase}"`);
    }
    this.phase = phase;
    this.fault = phase === "fault" ? error : null;
    if (phase === "fault") this.attempts += 1;
    this.onPhase(phase);
  }

  /** Python answers changes now. */
  get live() {
    return this.phase === "live";
  }

  /** Python is running (its first view may still be on its way). */
  get running() {
    return this.phase === "confirming" || this.phase === "live";
  }
}
