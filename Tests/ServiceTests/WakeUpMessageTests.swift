import Contracts
import Domain
import Foundation
import Testing

@Suite("Wake-up messages")
struct WakeUpMessageTests {
    @Test("written by hand, read by JSONDecoder and by the gateway's reader alike")
    func roundTrip() throws {
        let wakeUps = (1...3).map { WakeUp(userID: UserID(), seq: Int64($0) * 1_000_000_007) }
        let message = WakeUp.message(wakeUps)
        #expect(try JSONDecoder().decode([WakeUp].self, from: Data(message)) == wakeUps)
        #expect(WakeUp.wakeUps(in: message) == wakeUps)
        #expect(WakeUp.wakeUps(in: WakeUp.message([])) == [])
        let extra = #"[{"seq":1,"user_id":"\#(wakeUps[0].userID)","more":{"x":[1]}}]"#
        #expect(WakeUp.wakeUps(in: Array(extra.utf8)) == [WakeUp(userID: wakeUps[0].userID, seq: 1)])
    }

    @Test("anything else is refused")
    func refuses() {
        let user = UserID()
        for text in [
            "", "{}", "[", #"[{"seq":1}]"#, #"[{"user_id":"\#(user)"}]"#, #"[{"seq":1,"user_id":"nope"}]"#,
            #"[{"seq":1.5,"user_id":"\#(user)"}]"#, #"[{"seq":1,"user_id":"\#(user)"}] x"#,
        ] {
            #expect(WakeUp.wakeUps(in: Array(text.utf8)) == nil, "\(text)")
        }
    }
}
