public import NIOCore

/// When a client connection flushes: once half of the calls it has outstanding have been
/// written since the last flush, or at the end of the event-loop tick, whichever comes first.
///
/// Flushing every call costs a system call each; flushing once per tick makes client and
/// server take turns on whole batches, each idle while the other works. Groups of half the
/// outstanding calls keep both sides busy with fewer system calls, and a lone call is
/// flushed at once. Owned by one channel handler and used on its event loop only.
public final class FlushGrouping {
    private var unflushed = 0
    private var scheduled = false

    public init() {}

    /// Call from the handler's `flush(context:)`, with the number of calls awaiting an answer.
    public func flushRequested(context: ChannelHandlerContext, outstanding: Int) {
        unflushed += 1
        if unflushed >= max(1, outstanding / 2) {
            unflushed = 0
            context.flush()
            return
        }
        guard !scheduled else { return }
        scheduled = true
        let bound = NIOLoopBound((grouping: self, context: context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (grouping, context) = bound.value
            grouping.scheduled = false
            if grouping.unflushed > 0 {
                grouping.unflushed = 0
                context.flush()
            }
        }
    }
}
