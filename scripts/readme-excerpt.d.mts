// Types of scripts/readme-excerpt.mjs for the test that imports it (test/docs/readme.test.ts).
export declare const README: string;
export declare function excerpts(readme: string): Array<{ args: string[]; text: string }>;
export declare function leaderboardOf(stdout: string): string;
export declare function runExcerpt(args: string[]): string;
