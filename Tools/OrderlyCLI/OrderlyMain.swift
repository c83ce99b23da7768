/// The entry point.
@main
enum OrderlyMain {
    static func main() async {
        await Orderly.main(nil)
    }
}
