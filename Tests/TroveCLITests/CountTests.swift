import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct CountTests {
    let fixture: QueryFixture

    init() throws {
        fixture = try QueryFixture()
    }

    @Test func printsTheNumberAlone() throws {
        let all = try fixture.run("count", "Photo")
        #expect(all.status == 0)
        #expect(all.stdout == "3\n")
        #expect(all.stderr.isEmpty)
        #expect(try fixture.run("count", "Tag").stdout == "2\n")
        #expect(try fixture.run("count", "Photo", "--where", "views > %@", "--arg", "10").stdout == "2\n")
        #expect(try fixture.run("count", "Photo", "--where", "taken < %@", "--arg", "2012-01-01T00:00:00.000Z").stdout == "1\n")
        #expect(try fixture.run("count", "Photo", "--where", "isPublic = %@ OR price > %@", "--arg", "no", "--arg", "1e19").stdout == "2\n")
        #expect(try fixture.run("count", "Photographer", "--where", "photos.@count > 0 AND studio = nil").stdout == "1\n")
        #expect(try fixture.run("count", "Photo", "--where", "FALSEPREDICATE").stdout == "0\n")
    }

    @Test func errorsExitAsQueryDoes() throws {
        let entity = try fixture.run("count", "Foto")
        #expect(entity.status == 1)
        #expect(entity.stderr.contains("has no entity 'Foto'; its entities are: Photographer, Photo, Tag, Studio"))
        let syntax = try fixture.run("count", "Photo", "--where", "views >")
        #expect(syntax.status == 1)
        #expect(syntax.stderr == "trove: --where: syntax error at column 8: expected a value after '>', but the predicate ends\n  views >\n         ^\n")
        let toMany = try fixture.run("count", "Photo", "--where", "tags.name = 'apple'")
        #expect(toMany.status == 1)
        #expect(toMany.stderr.contains("write ANY, ALL or NONE before it"))
        let missing = try CLIRunner.run(["count", fixture.dir.file("none.trove").path, "Photo"])
        #expect(missing.status == 3)
    }
}
