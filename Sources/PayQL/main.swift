// The `payql` command: the only place that reads the environment and the
// command line. Each subcommand lives in Commands/<Name>Command.swift.
#if canImport(Glibc)
import Glibc
#endif

let streams = StandardStreams.secure()
let arguments = Array(CommandLine.arguments.dropFirst())
let status = await PayQLCommand.run(arguments, streams: streams)
exit(status)
