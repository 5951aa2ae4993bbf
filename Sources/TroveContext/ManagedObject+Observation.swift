public import Observation
import TroveModel

/// Generated properties take part in Swift's Observation: `withObservationTracking` (and
/// SwiftUI) sees a property read and is told when its value changes — by the app, a merge, an
/// undo or redo, a rollback or a refresh.
///
/// Taking part costs a registrar per object read (about a microsecond), so it is on for the
/// container's `viewContext` and off for other contexts unless
/// ``ObjectContext/isObservationEnabled`` is set.
extension ManagedObject: Observable {}

extension ManagedObject {
    /// The key path the registrar knows attribute `index` by (attributes and relationships of
    /// every entity share them: the subject tells objects apart).
    subscript(observedAttribute index: Int) -> Int { index }
    /// The key path the registrar knows relationship `index` by.
    subscript(observedRelationship index: Int) -> Int { index }

    /// Reports a read of attribute (or relationship) `index` to Observation.
    final func observeAccess(attribute index: Int? = nil, relationship: Int? = nil) {
        guard isObserved, let context else { return }
        let keys = context.observationKeys
        if observation == nil { observation = ObjectObservation() }
        guard let registrar = observation?.registrar else { return }
        if let index { registrar.access(self, keyPath: keys.attributes[index]) }
        if let relationship { registrar.access(self, keyPath: keys.relationships[relationship]) }
    }

    /// Tells observers that attribute (or relationship) `index` changed.
    final func observeChange(attribute index: Int? = nil, relationship: Int? = nil) {
        guard let registrar = observation?.registrar, let context else { return }
        let keys = context.observationKeys
        if let index { registrar.withMutation(of: self, keyPath: keys.attributes[index]) {} }
        if let relationship { registrar.withMutation(of: self, keyPath: keys.relationships[relationship]) {} }
    }

    /// Tells observers that any value may have changed (a refresh, a rollback).
    final func observeChangeOfEverything() {
        guard observation != nil else { return }
        for index in entity.attributes.indices { observeChange(attribute: index) }
        for index in entity.relationships.indices { observeChange(relationship: index) }
    }
}

/// An object's Observation registrar, in a box: an object that nobody observes tells so by a
/// nil reference, which is tested without going through the registrar's type.
final class ObjectObservation {
    let registrar = ObservationRegistrar()
}

/// The key paths of every attribute and relationship position of a model, made once per context.
struct ObservationKeys {
    let attributes: [KeyPath<ManagedObject, Int>]
    let relationships: [KeyPath<ManagedObject, Int>]

    init(model: Model) {
        let attributeCount = model.entities.map(\.attributes.count).max() ?? 0
        let relationshipCount = model.entities.map(\.relationships.count).max() ?? 0
        attributes = (0..<attributeCount).map { \ManagedObject.[observedAttribute: $0] }
        relationships = (0..<relationshipCount).map { \ManagedObject.[observedRelationship: $0] }
    }
}
