// lab.set calls on their way to Python, in batches: calls made in one burst
// (one task) go as one request, draw once, and each resolves or rejects on
// its own; calls made while a batch is with Python form the next one. No
// DOM here: node --test checks it with a fake Python.

export class Batches {
  // send(partials) -> Promise of the reply envelope ({ok, view, results} or
  // {ok: false, error}); applied(calls, reply) draws a reply and settles
  // its calls; hold() and release() bracket each round trip.
  constructor({ send, applied, hold = () => {}, release = () => {} }) {
    this.send = send;
    this.applied = applied;
    this.hold = hold;
    this.release = release;
    this.queue = []; // {partial, resolve, reject}
    this.scheduled = false;
  }

  get waiting() {
    return this.queue.length;
  }

  /** Queue a call, to go with the next batch (flush() sends it). */
  add(call) {
    this.queue.push(call);
  }

  /** Send what is queued once this task ends (a burst is one batch). */
  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Reject every queued call (a fault: they will never reach Python). */
  rejectAll(message) {
    for (const call of this.queue.splice(0)) call.reject(new Error(message));
  }

  async flush() {
    const calls = this.queue.splice(0);
    if (!calls.length) {
      this.scheduled = false;
      return;
    }
    let reply;
    this.hold();
    try {
      reply = await this.send(calls.map((call) => call.partial));
    } catch (error) {
      for (const call of calls) call.reject(error);
      this.scheduled = false;
      return;
    } finally {
      this.release();
    }
    if (!reply.ok) {
      for (const call of calls) call.reject(new Error(reply.error));
    } else {
      this.applied(calls, reply);
    }
    this.scheduled = false;
    if (this.queue.length) this.schedule();
  }
}
