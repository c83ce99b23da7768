import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// The stores, their staff and the couriers the run created.
struct Cast: Sendable {
    var admin: String
    var stores: [StoreID]
    /// One staff token per store.
    var staff: [String]
    /// The staff member of each store, whose inbox must hear of every order.
    var staffIDs: [UserID]
    var couriers: [String]
    var courierIDs: [UserID]
    /// Whether each store dispatches its deliveries on creation (every other one, the first
    /// included): the couriers hear of those as they are made, of the others once accepted.
    var dispatchesOnCreate: [Bool] = []

    struct Tokens: Decodable {
        var accessToken: String
        enum CodingKeys: String, CodingKey { case accessToken = "access_token" }
    }
    struct Created: Decodable { var id: String }

    static func create(_ api: API, admin email: String, password: String, stores: Int, couriers: Int) async throws
        -> Cast
    {
        let run = UUID().uuidString.prefix(8).lowercased()
        let admin = try await login(api, email, password)
        var cast = Cast(admin: admin, stores: [], staff: [], staffIDs: [], couriers: [], courierIDs: [])
        for index in 0..<stores {
            let onCreate = index % 2 == 0
            let store = try await api.require(
                [201], .POST, "/v1/stores", token: admin,
                body: [
                    "name": "Loadgen \(run) store \(index + 1)",
                    "dispatch": (onCreate ? Dispatch.onCreate : .whenReady).rawValue,
                ]
            ).decode(Created.self)
            cast.dispatchesOnCreate.append(onCreate)
            let staffEmail = "loadgen-\(run)-staff-\(index)@orderly.test"
            let user = try await api.require(
                [201], .POST, "/v1/users", token: admin,
                body: [
                    "email": staffEmail, "password": "loadgen-password", "name": "Staff \(index)", "role": "staff",
                    "store_id": store.id,
                ]
            ).decode(Created.self)
            cast.stores.append(StoreID(store.id)!)
            cast.staffIDs.append(UserID(user.id)!)
            cast.staff.append(try await login(api, staffEmail, "loadgen-password"))
        }
        for index in 0..<couriers {
            let courierEmail = "loadgen-\(run)-courier-\(index)@orderly.test"
            let user = try await api.require(
                [201], .POST, "/v1/users", token: admin,
                body: [
                    "email": courierEmail, "password": "loadgen-password", "name": "Courier \(index)",
                    "role": "courier",
                ]
            ).decode(Created.self)
            let token = try await login(api, courierEmail, "loadgen-password")
            _ = try await api.require(
                [200], .PUT, "/v1/couriers/me/availability", token: token, body: ["on_duty": true])
            cast.couriers.append(token)
            cast.courierIDs.append(UserID(user.id)!)
        }
        return cast
    }

    static func login(_ api: API, _ email: String, _ password: String) async throws -> String {
        try await api.require([200], .POST, "/v1/auth/login", body: ["email": email, "password": password])
            .decode(Tokens.self).accessToken
    }

    /// Client `index`: three in four act as store staff, the rest as couriers.
    func worker(_ index: Int) -> Worker {
        let store = index % stores.count
        let courier = index % 4 == 3 ? index / 4 % couriers.count : nil
        return Worker(
            index: index, store: store, staff: staff[store], courier: courier,
            courierToken: courier.map { couriers[$0] })
    }
}
