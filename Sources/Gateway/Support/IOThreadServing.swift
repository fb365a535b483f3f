public import HTTPServer
public import Postgres

extension PostgresPool {
    /// The pool's I/O threads as event loops for the HTTP server
    /// (`HTTPServerConfiguration.eventLoops`): each serves a libmicrohttpd daemon beside
    /// its PostgreSQL connections, so that a request is read, executed until it waits for
    /// its statements, resumed by their results and answered on one thread, with no
    /// hand-off between the server's threads and the pool's (docs/http.md, "Event loops").
    public var httpEventLoops: [HTTPServerEventLoop] {
        (0..<ioThreadCount).map { index in
            HTTPServerEventLoop { [self] descriptor, service in
                let attached = attachToIOThread(index, descriptor: descriptor, service)
                return HTTPServerEventLoop.Attachment(detach: { attached.detach() }, requestRun: { attached.requestRun() })
            }
        }
    }
}
