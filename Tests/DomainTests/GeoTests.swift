import Domain
import Foundation
import Testing

@Suite("Places, delivery areas and search words")
struct GeoTests {
    static let telAviv = GeoPoint(lat: 32.0853, lng: 34.7818)

    @Test("distances on the sphere: Tel Aviv to Jerusalem about 54 km, a point to itself nothing")
    func distance() {
        let jerusalem = GeoPoint(lat: 31.7683, lng: 35.2137)
        #expect((53_000...55_000).contains(Self.telAviv.distance(to: jerusalem)))
        #expect(Self.telAviv.distance(to: Self.telAviv) == 0)
        #expect(abs(Self.telAviv.distance(to: jerusalem) - jerusalem.distance(to: Self.telAviv)) < 1e-6)
    }

    @Test(
        "a radius holds what is within it, and its rectangle holds the whole circle",
        arguments: [0.0, 32.0, 65.0, -40.0])
    func radius(latitude: Double) {
        let centre = GeoPoint(lat: latitude, lng: 20)
        let area = DeliveryArea.radius(metres: 3000)
        let box = try! #require(area.box(around: centre))
        // Points on the circle, just in and just out, every 15 degrees round it.
        for degrees in stride(from: 0.0, to: 360, by: 15) {
            let bearing = degrees * .pi / 180
            for (metres, inside) in [(2990.0, true), (3010.0, false)] {
                let point = GeoPoint(
                    lat: centre.lat + metres * cos(bearing) / 111_195,
                    lng: centre.lng + metres * sin(bearing) / (111_195 * cos(centre.lat * .pi / 180)))
                #expect(area.contains(point, centre: centre) == inside, "\(degrees)° \(metres) m")
                if inside { #expect(box.contains(point), "\(degrees)° \(metres) m outside the rectangle") }
            }
        }
    }

    @Test("a polygon holds what is inside it, concave corners included")
    func polygon() {
        // An L: the square's north-east quarter cut away.
        let area = DeliveryArea.polygon([
            GeoPoint(lat: 0, lng: 0), GeoPoint(lat: 2, lng: 0), GeoPoint(lat: 2, lng: 1), GeoPoint(lat: 1, lng: 1),
            GeoPoint(lat: 1, lng: 2), GeoPoint(lat: 0, lng: 2),
        ])
        let centre = GeoPoint(lat: 0, lng: 0)
        #expect(area.contains(GeoPoint(lat: 0.5, lng: 0.5), centre: centre))
        #expect(area.contains(GeoPoint(lat: 1.5, lng: 0.5), centre: centre))
        #expect(!area.contains(GeoPoint(lat: 1.5, lng: 1.5), centre: centre))
        #expect(!area.contains(GeoPoint(lat: -0.1, lng: 0.5), centre: centre))
        #expect(area.box(around: centre) == GeoBox(minLat: 0, maxLat: 2, minLng: 0, maxLng: 2))
    }

    @Test("bad places and areas are named")
    func validation() {
        var problems = FieldProblems()
        GeoPoint(lat: 91, lng: .nan).validate(into: &problems, field: "location")
        DeliveryArea.radius(metres: 0).validate(into: &problems, field: "a")
        DeliveryArea.polygon([GeoPoint(lat: 0, lng: 0)]).validate(into: &problems, field: "b")
        DeliveryArea.polygon([GeoPoint(lat: 0, lng: -100), GeoPoint(lat: 1, lng: 100), GeoPoint(lat: 1, lng: 0)])
            .validate(into: &problems, field: "c")
        DeliveryArea.polygon([GeoPoint(lat: 0, lng: 0), GeoPoint(lat: 100, lng: 0), GeoPoint(lat: 1, lng: 1)])
            .validate(into: &problems, field: "d")
        #expect(
            Set(problems.reasons.keys) == [
                "location.lat", "location.lng", "a.radius_m", "b.polygon", "c.polygon", "d.polygon[1].lat",
            ])
        for reason in problems.reasons.values { #expect(FieldReasonTexts.knows(reason), "\(reason)") }
    }

    @Test("distance tiers add to the boxes' fee, the last one open")
    func distanceTiers() {
        var pricing = DeliveryPricing.standard
        #expect(pricing.surcharge(forMetres: 5000) == 0)
        pricing.byDistance = [DistanceTier(maxMetres: 1000, fee: 0), DistanceTier(maxMetres: nil, fee: 900)]
        #expect(pricing.surcharge(forMetres: 1000) == 0 && pricing.surcharge(forMetres: 1001) == 900)
        var problems = FieldProblems()
        pricing.byDistance = [DistanceTier(maxMetres: 1000, fee: 0), DistanceTier(maxMetres: 500, fee: 900)]
        pricing.validate(into: &problems, field: "p")
        #expect(Set(problems.reasons.keys) == ["p.by_distance[1].max_m"])
    }

    @Test(
        "words are folded alike however they are written",
        arguments: [
            ("Café  CRÈME", ["cafe", "creme"]),
            ("שַׁקְשׁוּקָה", ["שקשוקה"]),
            ("فَلَافِل", ["فلافل"]),
            ("فلافـــل", ["فلافل"]),
            ("أحمد إبراهيم آمنة ٱلله", ["احمد", "ابراهيم", "امنه", "الله"]),
            ("مستشفى", ["مستشفي"]),
            ("Pizza-Place, 24/7!", ["pizza", "place", "24", "7"]),
            ("", []),
        ])
    func folding(text: String, words: [String]) {
        #expect(SearchWords.words(text) == words)
    }

    @Test("what is indexed holds each word once; a query keeps its first eight")
    func indexedAndQuery() {
        #expect(SearchWords.indexed(["Pizza Roma", nil, "pizza margherita"]) == "pizza roma margherita")
        #expect(SearchWords.query("a b c d e f g h i j") == ["a", "b", "c", "d", "e", "f", "g", "h"])
    }
}
