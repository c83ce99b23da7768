import Foundation
import JSON
import NIOCore
import NIOEmbedded
import WireCodec

/// What `make fuzz-wire` runs for every input libFuzzer makes: the bytes as a stream of frames
/// through the server's frame decoder (hello limit included), each frame and the whole input as
/// an envelope, and the whole input through the JSON scanner. Nothing may crash; an envelope that
/// parses must write itself back to text that parses to the same text again; text the scanner
/// takes for JSON must be JSON to Foundation too.
public enum WireFuzz {
    public static func check(_ bytes: UnsafeRawBufferPointer) {
        let input = ByteBuffer(bytes: bytes)
        for frame in frames(of: input) { checkEnvelope(frame) }
        checkEnvelope(input)
        checkScanner(bytes)
    }

    /// The frames the server's decoder cuts from `input`, fed in two reads split where the first
    /// byte says, so that frames cut across reads are tried too.
    private static func frames(of input: ByteBuffer) -> [ByteBuffer] {
        // Proven after the first read, as a server's peer is after its hello: the first read's
        // frames have the hello's limit, the second's the full one.
        let proof = WirePeerProof()
        let channel = EmbeddedChannel(
            handler: ByteToMessageHandler(
                WireFrameDecoder(
                    maximumFrameLength: 64 * 1024, unprovenFrameLimit: WireDefaults.maximumHelloLength,
                    proof: proof, stallTimeout: .seconds(10))))
        defer { _ = try? channel.finish() }
        let split =
            input.readableBytes == 0
            ? 0 : Int(input.getInteger(at: input.readerIndex, as: UInt8.self)!) % (input.readableBytes + 1)
        var frames: [ByteBuffer] = []
        for part in [
            input.getSlice(at: input.readerIndex, length: split)!,
            input.getSlice(at: input.readerIndex + split, length: input.readableBytes - split)!,
        ] {
            do {
                try channel.writeInbound(part)
            } catch {
                break  // a frame too large: the server answers with an error and closes
            }
            while let frame = try? channel.readInbound(as: ByteBuffer.self) {
                let limit = proof.isProven ? 64 * 1024 : WireDefaults.maximumHelloLength
                precondition(frame.readableBytes <= limit, "a frame above the limit was let through")
                frames.append(frame)
            }
            proof.isProven = true
        }
        return frames
    }

    private static func checkEnvelope(_ frame: ByteBuffer) {
        guard let envelope = try? WireEnvelope.parse(frame) else { return }
        let written = envelope.encoded(allocator: ByteBufferAllocator())
        let reparsed: WireEnvelope
        do {
            reparsed = try WireEnvelope.parse(written)
        } catch {
            preconditionFailure("an envelope's own text does not parse: \(error.error) in \(String(buffer: written))")
        }
        let rewritten = reparsed.encoded(allocator: ByteBufferAllocator())
        precondition(
            rewritten == written,
            "an envelope changed on a round trip: \(String(buffer: written)) then \(String(buffer: rewritten))")
    }

    private static func checkScanner(_ bytes: UnsafeRawBufferPointer) {
        guard (try? JSONScanner.validate(bytes)) != nil else { return }
        let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        precondition(foundation != nil, "the scanner took for JSON what Foundation does not: \(Array(bytes))")
    }
}

/// libFuzzer's entry point. `make fuzz-wire` builds this target as a shared library with
/// `-sanitize=fuzzer` and links it into libFuzzer's own program.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    WireFuzz.check(UnsafeRawBufferPointer(start: data, count: count))
    return 0
}
