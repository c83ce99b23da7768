public import Domain

/// The order's JSON by hand, fields in sorted order, optional ones left out when absent: what
/// `JSONEncoder` writes for `Order`'s `Codable` (`OrderJSONTests` compares them byte for byte).
extension Order: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            if let allowedActions {
                writer.key("allowed_actions")
                writer.array(allowedActions) { writer, action in writer.string(action.rawValue) }
            }
            writer.field("apartment", apartment)
            writer.field("archived_at", archivedAt)
            writer.field("auto_accept", autoAccept)
            writer.field("boxes_count", boxesCount)
            writer.field("boxes_multiplier", boxesMultiplier)
            writer.field("building_no", buildingNo)
            writer.field("can_edit", canEdit)
            writer.field("cancellation_reason", cancellationReason)
            writer.field("cash_collected", cashCollected)
            writer.field("city", city)
            writer.field("claimed_at", claimedAt)
            writer.field("courier_first_name", courierFirstName)
            writer.field("courier_id", courierID?.description)
            writer.field("created_at", createdAt)
            writer.field("created_by", createdBy.description)
            writer.field("currency", currency.code)
            writer.field("customer_id", customerID?.description)
            writer.field("customer_name", customerName)
            writer.field("customer_notes", customerNotes)
            writer.field("delivered_at", deliveredAt)
            writer.field("delivery_address", deliveryAddress)
            writer.field("delivery_fee", deliveryFee)
            writer.field("delivery_notes", deliveryNotes)
            writer.field("due_at", dueAt)
            writer.field("floor", floor)
            writer.field("fulfillment", fulfillment.rawValue)
            writer.field("id", id.description)
            writer.key("items")
            writer.array(items) { writer, item in item.write(to: &writer) }
            writer.field("items_gross", itemsGross)
            writer.field("items_net", itemsNet)
            writer.field("items_vat", itemsVAT)
            writer.field("notes", notes)
            writer.field("number", number)
            writer.field("paid_amount", paidAmount)
            writer.field("pay_by", payBy)
            writer.field("payment_method", paymentMethod?.rawValue)
            writer.field("payment_status", paymentStatus?.rawValue)
            writer.field("phone", phone)
            writer.field("pickup_address", pickupAddress)
            writer.field("recipient_first_name", recipientFirstName)
            writer.field("recipient_last_name", recipientLastName)
            writer.field("status", status.rawValue)
            writer.field("store_id", storeID.description)
            writer.field("store_name", storeName)
            writer.field("store_phone", storePhone)
            writer.field("street", street)
            writer.field("tip", tip)
            writer.field("total", total)
            writer.field("updated_at", updatedAt)
            writer.field("version", version)
            writer.field("workflow", workflow?.rawValue)
        }
    }
}

extension OrderItem: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("description", description)
            writer.field("device_id", deviceID)
            writer.field("id", id.description)
            writer.field("is_warranty_item", isWarrantyItem)
            writer.field("line_gross", lineGross)
            writer.field("line_net", lineNet)
            writer.field("line_vat", lineVAT)
            writer.field("notes", notes)
            if let options {
                writer.key("options")
                writer.array(options) { writer, option in
                    writer.object { writer in
                        writer.field("group_id", option.groupID.description)
                        writer.field("id", option.id.description)
                        writer.field("name", option.name)
                        writer.field("price_delta", option.priceDelta)
                    }
                }
            }
            writer.field("product_id", productID?.description)
            writer.field("quantity", quantity)
            if let reservationIDs {
                writer.key("reservation_ids")
                writer.array(reservationIDs) { writer, id in writer.string(id.description) }
            }
            writer.field("type", type.rawValue)
            writer.field("unit_price_gross", unitPriceGross)
            writer.field("unit_price_net", unitPriceNet)
            writer.field("vat_rate_bp", vatRateBasisPoints)
            writer.field("warranty_notes", warrantyNotes)
        }
    }
}

extension OrderHistoryEntry: JSONWritable {
    /// `details`, when there are any, are Foundation's, spliced in: they are free-form.
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("actor_id", actorID?.description)
            writer.field("actor_role", actorRole?.rawValue)
            writer.field("at", at)
            writer.field("change", change)
            if let details {
                writer.key("details")
                writer.foundation(details)
            }
            writer.field("from", from?.rawValue)
            writer.field("order_id", orderID.description)
            writer.field("seq", seq)
            writer.field("to", to?.rawValue)
        }
    }
}

/// The draft a client sends, as the idempotency record's request hash reads it.
extension OrderDraft: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("apartment", apartment)
            if let boxesCount { writer.field("boxes_count", boxesCount) }
            writer.field("building_no", buildingNo)
            writer.field("city", city)
            writer.field("customer_name", customerName)
            writer.field("delivery_notes", deliveryNotes)
            writer.field("due_at", dueAt)
            writer.field("floor", floor)
            writer.field("fulfillment", fulfillment?.rawValue)
            writer.field("id", id?.description)
            writer.field("notes", notes)
            writer.field("phone", phone)
            writer.field("recipient_first_name", recipientFirstName)
            writer.field("recipient_last_name", recipientLastName)
            writer.field("store_id", storeID?.description)
            writer.field("street", street)
            writer.field("workflow", workflow?.rawValue)
        }
    }
}
