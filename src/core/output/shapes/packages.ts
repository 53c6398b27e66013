/** Package managers: what was installed and every error stay; resolution and download chatter fold. */
import type { OutputShape } from './shape.js';

const CHATTER = 'package manager progress';

export const pip: OutputShape = {
  name: 'pip',
  kind: 'package',
  command: /\bpip3?( |$)|-m pip\b|\buv pip\b|\bconda (install|create|update)\b|\bpoetry (install|add)\b/,
  evidence: /^Requirement already satisfied: |^Collecting \S|^Successfully installed /,
  rules: [
    { re: /^(ERROR|error):|^Successfully installed |^ERROR: |incompatible\.?$|^\s*× /, role: 'signal' },
    {
      re: /^\s*(Requirement already satisfied:|Collecting |Downloading |Using cached |Obtaining |Installing build dependencies|Getting requirements to build|Preparing (editable )?metadata|Building (wheels? for|editable for)|Created wheel for|Stored in directory:|Attempting uninstall:|Found existing installation:|Uninstalling |Successfully uninstalled |Installing collected packages:|Looking in indexes:|Using legacy|Checking if build backend|Running setup\.py|Building wheel|Successfully built )/,
      role: 'routine',
      label: CHATTER,
    },
    { re: /^WARNING: Running pip as the 'root' user|^\[notice\] /, role: 'routine', label: CHATTER },
  ],
};

export const npm: OutputShape = {
  name: 'npm',
  kind: 'package',
  command: /\b(npm (install|i|ci|update|add)|yarn( install| add|$)|pnpm (install|add|i))\b/,
  evidence: /^npm (WARN|notice|ERR!) |^added \d+ packages?/,
  rules: [
    { re: /^npm ERR! |^npm error |^added \d+ packages?|^up to date|^found \d+ vulnerabilities|^\d+ vulnerabilities/, role: 'signal' },
    { re: /^npm (WARN|warn|notice) |^\s*(Progress: resolved|Packages: \+)/, role: 'routine', label: CHATTER },
  ],
};

export const apt: OutputShape = {
  name: 'apt',
  kind: 'package',
  command: /\b(apt|apt-get|dpkg)\b/,
  evidence: /^(Get|Hit|Ign):\d+ |^Setting up \S+ \(|^Unpacking \S+ /,
  rules: [
    { re: /^E: |^(\d+ upgraded|\d+ newly installed)/, role: 'signal' },
    {
      re: /^(Get|Hit|Ign):\d+ |^(Reading package lists|Building dependency tree|Reading state information|Selecting previously unselected|Preparing to unpack|Unpacking|Setting up|Processing triggers|Fetched|Need to get|After this operation|\(Reading database)/,
      role: 'routine',
      label: CHATTER,
    },
  ],
};

export const PACKAGE_SHAPES = [pip, npm, apt];
