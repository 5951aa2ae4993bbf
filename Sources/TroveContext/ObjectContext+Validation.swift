import Foundation
package import TroveModel
import TrovePredicate

extension ObjectContext {
    /// Every rule broken by an inserted or updated object, and every `deny` delete rule that
    /// a deleted object's relationships still trip.
    func validate(inserted: [ManagedObject], updated: [ManagedObject]) throws -> [ValidationError.Failure] {
        var failures: [ValidationError.Failure] = []
        // The validators of each entity, found once per run of objects of one entity.
        var validators: (entity: String, hooks: [ObjectHooks.Hook])?
        for object in inserted + updated {
            let entity = object.entity
            if validators?.entity != entity.name { validators = (entity.name, hooks.validators(for: entity, in: model)) }
            for checked in entity.attributesCheckedAtSave {
                // A required attribute without other rules fails only when nil.
                let value = object.values[checked.position]
                guard checked.hasRules || value.isNull else { continue }
                failures += ObjectContext.check(value, of: entity.attributes[checked.position], in: object.objectID)
            }
            // (An object holds a state per relationship of its entity: none, none to check.)
            let indices = object.relationships.isEmpty ? []
                : object.isInserted ? Array(entity.relationships.indices) : object.changedRelationshipIndices
            for index in indices {
                let relationship = entity.relationships[index]
                guard !relationship.isOptional || relationship.minCount != nil || relationship.maxCount != nil else { continue }
                failures += check(relationship, holding: try relatedIDs(of: object, at: index).count, in: object.objectID)
            }
            failures += Self.custom(object, inserted: object.isInserted, validators: validators?.hooks ?? [])
        }
        for object in deleted.values.sorted(by: ObjectContext.storeOrder) {
            failures += Self.custom(object) { try $0.validateForDelete() }
            for (index, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                let blocking = try relatedIDs(of: object, at: index).filter { deleted[$0] == nil }
                guard !blocking.isEmpty else { continue }
                failures.append(ValidationError.Failure(
                    objectID: object.objectID, key: relationship.name, rule: .deny,
                    message: "cannot delete: \(relationship.name) still holds \(blocking.map(\.description).joined(separator: ", ")) and its delete rule is deny; remove them first"))
            }
        }
        return failures
    }

    /// The failures the class's validation and the entity's validators report for an inserted
    /// or updated object.
    private static func custom(_ object: ManagedObject, inserted: Bool, validators: [ObjectHooks.Hook]) -> [ValidationError.Failure] {
        var failures = custom(object) { inserted ? try $0.validateForInsert() : try $0.validateForUpdate() }
        for validator in validators {
            failures += custom(object, validator)
        }
        return failures
    }

    /// The failure a custom validation of `object` reports, if it throws.
    private static func custom(_ object: ManagedObject, _ validate: (ManagedObject) throws -> Void) -> [ValidationError.Failure] {
        do {
            try validate(object)
            return []
        } catch let rejection as ObjectHooks.Rejection {
            return [ValidationError.Failure(objectID: object.objectID, key: rejection.key, rule: .custom, message: rejection.message)]
        } catch {
            return [ValidationError.Failure(objectID: object.objectID, key: nil, rule: .custom, message: "\(error)")]
        }
    }

    /// The rules a relationship holding `count` objects breaks.
    private func check(_ relationship: Relationship, holding count: Int, in id: ObjectID) -> [ValidationError.Failure] {
        func failure(_ rule: ValidationError.Failure.Rule, _ message: String) -> ValidationError.Failure {
            ValidationError.Failure(objectID: id, key: relationship.name, rule: rule, message: message)
        }
        if count == 0 && !relationship.isOptional {
            return [failure(.required, "\(relationship.name) is required but \(relationship.isToMany ? "empty" : "nil")")]
        }
        var failures: [ValidationError.Failure] = []
        if let minCount = relationship.minCount, count < minCount, count > 0 || !relationship.isOptional {
            failures.append(failure(.minimum, "\(relationship.name) holds \(count) objects, fewer than the minimum \(minCount)"))
        }
        if let maxCount = relationship.maxCount, count > maxCount {
            failures.append(failure(.maximum, "\(relationship.name) holds \(count) objects, more than the maximum \(maxCount)"))
        }
        return failures
    }

    /// The model's rules a value breaks (required, min, max, regex), as a save checks them.
    package static func check(_ value: AttributeValue, of attribute: Attribute, in id: ObjectID) -> [ValidationError.Failure] {
        func failure(_ rule: ValidationError.Failure.Rule, _ message: String) -> ValidationError.Failure {
            ValidationError.Failure(objectID: id, key: attribute.name, rule: rule, message: message)
        }
        if value.isNull {
            return attribute.isOptional ? [] : [failure(.required, "\(attribute.name) is required but nil")]
        }
        guard attribute.minimum != nil || attribute.maximum != nil || attribute.regex != nil else { return [] }
        var failures: [ValidationError.Failure] = []
        let measured = measure(value)
        if let minimum = attribute.minimum, let bound = measure(minimum), let m = measured, m < bound {
            failures.append(failure(.minimum, "\(describe(value, attribute)) is below the minimum \(minimum)"))
        }
        if let maximum = attribute.maximum, let bound = measure(maximum), let m = measured, m > bound {
            failures.append(failure(.maximum, "\(describe(value, attribute)) is above the maximum \(maximum)"))
        }
        if let pattern = attribute.regex, case .string(let s) = value {
            do {
                if try !RegexMatcher.wholeMatch(s, pattern: pattern, caseInsensitive: false) {
                    failures.append(failure(.regex, "\(value) does not match the pattern \(pattern)"))
                }
            } catch {
                failures.append(failure(.regex, "\(value) cannot be checked: \(error.message)"))
            }
        }
        return failures
    }

    /// What min/max compare: numbers by value, dates by time, strings and binary by length.
    private static func measure(_ value: AttributeValue) -> Decimal? {
        switch value {
        case .integer(let i): Decimal(i)
        case .double(let d): d.isFinite ? Decimal(string: String(d), locale: Locale(identifier: "en_US_POSIX")) : nil
        case .decimal(let d): d
        case .date(let d): Decimal(d.timeIntervalSinceReferenceDate)
        case .string(let s): Decimal(s.count)
        case .binary(let b): Decimal(b.count)
        default: nil
        }
    }

    private static func describe(_ value: AttributeValue, _ attribute: Attribute) -> String {
        switch value {
        case .string(let s): "the length \(s.count) of \(value)"
        case .binary(let b): "the length \(b.count)"
        default: "\(value)"
        }
    }
}
