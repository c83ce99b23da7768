import Foundation
import Storage
import TestSupport
import Testing

/// A checkout against the store's delivery area: inside it pays the fee of its distance, outside
/// it is refused, and an address that does not say where it is cannot be checked.
extension CheckoutTests {
    @Test(
        "a delivery outside the store's area is refused; inside it the fee adds the distance's tier",
        arguments: TestDatabase.kinds)
    func deliveryArea(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            // Placed from the start: the orders service learns of a store's changes by its events.
            let market = try await market(
                suite, autoAccept: true,
                store: [
                    "location": ["lat": 32.08, "lng": 34.78], "delivery_area": ["radius_m": 2000],
                    "delivery_pricing": [
                        "tiers": [["fee": 3500, "multiplier": 1]],
                        "by_distance": [["max_m": 1000, "fee": 0], ["fee": 700]],
                    ],
                ])
            let items: [[String: Any]] = [["product_id": market.falafel, "option_ids": [market.small]]]
            func cart(_ address: [String: Any]) -> [String: Any] {
                ["address": address, "payment_method": "cash_on_delivery", "items": items]
            }
            let street: [String: Any] = ["street": "Allenby", "building_no": "3"]

            // The saved address has no place on the map, so the area cannot be checked.
            let unplaced = try await checkout(
                suite, market, ["address_id": market.address, "payment_method": "cash_on_delivery", "items": items])
            #expect(
                unplaced.status == 400 && (unplaced.error["details"] as? [String: Any])?["address.location"] != nil,
                "\(unplaced.text)")
            // Haifa is outside; a place off the globe is named.
            let haifa = try await checkout(
                suite, market, cart(street.merging(["location": ["lat": 32.794, "lng": 34.9896]]) { $1 }))
            #expect(haifa.status == 422 && haifa.error["reason"] as? String == "outside_delivery_area", "\(haifa.text)")
            let offGlobe = try await checkout(
                suite, market, cart(street.merging(["location": ["lat": 95, "lng": 34.78]]) { $1 }))
            #expect(
                offGlobe.status == 400
                    && (offGlobe.error["details"] as? [String: Any])?["address.location.lat"] != nil,
                "\(offGlobe.text)")

            // 600 m away, saved with its place: the boxes' fee alone.
            let saved = try await api.send(
                suite, "POST", "/v1/me/addresses", token: market.customer,
                json: ["street": "Rothschild", "building_no": "1", "location": ["lat": 32.0853, "lng": 34.7818]])
            try #require(saved.status == 201 && saved.object["location"] != nil, "\(saved.text)")
            let near = try await checkout(
                suite, market,
                ["address_id": saved.object["id"] as! String, "payment_method": "cash_on_delivery", "items": items])
            #expect(near.status == 201 && near.object["delivery_fee"] as? Int == 3500, "\(near.text)")
            // 1.7 km away: the second distance tier on top.
            let farther = try await checkout(
                suite, market, cart(street.merging(["location": ["lat": 32.0953, "lng": 34.78]]) { $1 }))
            #expect(farther.status == 201 && farther.object["delivery_fee"] as? Int == 4200, "\(farther.text)")
            // A pickup goes nowhere, so no area applies.
            let pickup = try await checkout(
                suite, market, ["fulfillment": "pickup", "payment_method": "cash_on_delivery", "items": items])
            #expect(pickup.status == 201 && pickup.object["delivery_fee"] as? Int == 0, "\(pickup.text)")
        }
    }
}
