import CommandSupport
import Foundation

/// What a load against an API child reports beside its own figures: CPU per accepted request of
/// each party on the machine, and group commit's mean batch (`bench api`, `bench notifications`).
protocol APILoadFigures {
    var accepted: Int { get }
    var meanBatch: Double { get set }
    /// CPU milliseconds per accepted request: the bench process (load generator, and the API when
    /// it runs in process), the API child process (0 in process), the PostgreSQL backends of the
    /// scratch database, and the whole machine (everything, other users' work included; 0 when
    /// unknown).
    var benchProcessCPUMilliseconds: Double { get set }
    var apiChildCPUMilliseconds: Double { get set }
    var postgresCPUMilliseconds: Double { get set }
    var machineCPUMilliseconds: Double { get set }
}

extension BenchAPIServer {
    /// Runs `load` against this API and adds each party's CPU per accepted request and the mean
    /// batch to its figures.
    func measuring<Figures: APILoadFigures>(database: String, _ load: () async throws -> Figures) async throws -> Figures {
        let (bench, child, postgres, machine) = (ResourceUsage.now().cpuSeconds, childCPUSeconds,
                                                 CommandCPU.seconds(of: "postgres", commandLineContaining: database), MachineCPU.now())
        var figures = try await load()
        let accepted = Double(max(figures.accepted, 1))
        figures.benchProcessCPUMilliseconds = (ResourceUsage.now().cpuSeconds - bench) / accepted * 1000
        if let child, let now = childCPUSeconds { figures.apiChildCPUMilliseconds = (now - child) / accepted * 1000 }
        if let postgres, let now = CommandCPU.seconds(of: "postgres", commandLineContaining: database) { figures.postgresCPUMilliseconds = (now - postgres) / accepted * 1000 }
        if let machine, let now = MachineCPU.now() { figures.machineCPUMilliseconds = (now.busySeconds - machine.busySeconds) / accepted * 1000 }
        figures.meanBatch = BenchAPILoad.meanBatch(await metricsText())
        return figures
    }
}
