// Helpers shared by this package's tests.

/** A small seeded PRNG (mulberry32), so that a failing random case reproduces. */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const chance = (p: number) => next() < p;
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { int, chance, pick };
}

export type Rng = ReturnType<typeof seededRandom>;
