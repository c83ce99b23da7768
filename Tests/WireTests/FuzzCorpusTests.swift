import Foundation
import Testing
import WireFuzz

/// The checks `make fuzz-wire` runs, over its committed corpus, so that an input that once broke
/// the decoder, the envelope reader or the scanner (saved into the corpus) stays fixed.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    @Test("every input of the wire fuzzer's corpus passes its checks")
    func corpus() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../WireFuzz/corpus").standardized
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(files.count >= 9)
        for file in files {
            try Data(contentsOf: file).withUnsafeBytes(WireFuzz.check)
        }
    }
}
