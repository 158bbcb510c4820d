/** One operator command of the CLI (`modelgate keys …`): its arguments and environment in, the exit code out. */
export type Subcommand = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;
