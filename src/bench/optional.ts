/**
 * Packages the benchmark uses for comparison or plotting but skim itself does not need
 * (repomix, vega, vega-lite): development dependencies, loaded only when asked for, with an
 * error that says how to get them when they are missing (e.g. in an installed package).
 */
export async function loadOptional<T>(name: string, forWhat: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${name}'`))
      throw new Error(`${forWhat} needs the ${name} package, which skim does not install: npm install ${name}`);
    throw err;
  }
}
