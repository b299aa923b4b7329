// «Barajar» in the block lab's order panel: a new order of the same words.
// No DOM here: node --test runs it as it is.

// A uniformly drawn permutation (Fisher–Yates) other than the one given: a
// press that left the words where they were would look like a button that
// does nothing. One word, or the same item throughout, has no other order.
export function shuffled(items, random = Math.random) {
  if (new Set(items).size < 2) return [...items];
  for (;;) {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    if (out.some((item, i) => item !== items[i])) return out;
  }
}
