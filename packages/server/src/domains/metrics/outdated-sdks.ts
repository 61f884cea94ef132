// The first version of each official server SDK that the reference (8.2.0) no longer calls
// outdated, under the SDKs' old names and their new ones. SDKs name themselves
// `<name>:<version>` when they register; an SDK not listed here is never called outdated.
const CURRENT_FROM: Readonly<Record<string, string>> = {
  "unleash-client-node": "5.3.2",
  "unleash-client-nextjs": "1.6.2",
  "unleash-client-java": "9.2.0",
  "unleash-client-go": "4.1.0",
  "unleash-client-python": "5.11.0",
  "unleash-client-ruby": "5.0.0",
  "unleash-client-dotnet": "4.1.3",
  "unleash-client-php": "2.3.0",
  "unleash-node-sdk": "6.6.0",
  "unleash-nextjs-sdk": "1.6.2",
  "unleash-java-sdk": "11.0.2",
  "unleash-go-sdk": "5.0.3",
  "unleash-python-sdk": "6.3.0",
  "unleash-ruby-sdk": "6.3.1",
  "unleash-dotnet-sdk": "5.3.0",
  "unleash-php-sdk": "2.9.1",
};

const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** Whether `version` comes before `release` (a plain x.y.z); a version that is not semver is not judged. */
function before(version: string, release: string): boolean {
  const seen = VERSION.exec(version);
  const wanted = VERSION.exec(release);
  if (!seen || !wanted) return false;
  for (const part of [1, 2, 3]) {
    const difference = Number(seen[part]) - Number(wanted[part]);
    if (difference !== 0) return difference < 0;
  }
  // A pre-release comes before its release.
  return seen[4] !== undefined;
}

export function isOutdatedSdk(sdkVersion: string): boolean {
  const [name = "", version = ""] = sdkVersion.split(":");
  const current = CURRENT_FROM[name];
  return current !== undefined && before(version, current);
}
