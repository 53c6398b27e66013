/**
 * A foreground server started by another program (`npx skim serve`, a harness) stops when that
 * program is gone. A parent that exits without passing its signal on (npx killed, a SIGKILL)
 * leaves its child to init or a subreaper: the child's parent pid changes, and that is the sign.
 */

/** How often the parent is checked (ms); SKIM_PARENT_CHECK_MS overrides it. */
const DEFAULT_CHECK_MS = 1000;

/**
 * The parent as this module was loaded (as the command starts): a parent gone before the server
 * was up (killed just as it said it listens) is noticed too.
 */
const parentAtStart = process.ppid;

/** Call `onGone` once when this process's parent has exited. The check never keeps the process alive. */
export function whenParentExits(onGone: () => void): void {
  if (parentAtStart <= 1) return; // started by init (a service manager): nothing to follow
  const every = Number(process.env.SKIM_PARENT_CHECK_MS) > 0 ? Number(process.env.SKIM_PARENT_CHECK_MS) : DEFAULT_CHECK_MS;
  const timer = setInterval(() => {
    if (process.ppid === parentAtStart) return;
    clearInterval(timer);
    onGone();
  }, every);
  timer.unref();
}
