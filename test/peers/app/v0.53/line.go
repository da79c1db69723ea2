// SDK v0.53.8 with x/upgrade v0.2.0 (cosmossdk.io/x/upgrade), client/v2 beta.11 and sonic v1.15.5 (Go 1.26):
// the new binary of the v050-to-v053 upgrade. The line adds x/epochs (as simapp's v050-to-v053 does), so the
// handler's store upgrade adds its store at the plan height, and RunMigrations runs its InitGenesis and any
// module migrations between the two lines.
package main

import (
	"io"

	dbm "github.com/cosmos/cosmos-db"

	"context"

	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	epochsmodulev1 "cosmossdk.io/api/cosmos/epochs/module/v1"
	"cosmossdk.io/core/appconfig"
	"cosmossdk.io/log"
	storetypes "cosmossdk.io/store/types"
	_ "cosmossdk.io/x/upgrade"
	upgradekeeper "cosmossdk.io/x/upgrade/keeper"
	upgradetypes "cosmossdk.io/x/upgrade/types"

	"github.com/cosmos/cosmos-sdk/runtime"
	"github.com/cosmos/cosmos-sdk/server"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	_ "github.com/cosmos/cosmos-sdk/x/epochs"
	epochstypes "github.com/cosmos/cosmos-sdk/x/epochs/types"
)

type (
	Logger        = log.Logger
	UpgradeKeeper = upgradekeeper.Keeper
)

func nopLogger() Logger { return log.NewNopLogger() }

// UpgradeName is the plan this binary applies: the v0.50 build halts at it.
const UpgradeName = "v050-to-v053"

var (
	lineModules       = []*appv1alpha1.ModuleConfig{{Name: epochstypes.ModuleName, Config: appconfig.WrapAny(&epochsmodulev1.Module{})}}
	lineBeginBlockers = []string{epochstypes.ModuleName}
	lineInitGenesis   = []string{epochstypes.ModuleName}
)

func (app *App) registerUpgrades() {
	app.UpgradeKeeper.SetUpgradeHandler(UpgradeName, func(ctx context.Context, _ upgradetypes.Plan, fromVM module.VersionMap) (module.VersionMap, error) {
		return app.ModuleManager.RunMigrations(ctx, app.Configurator(), fromVM)
	})
	info, err := app.UpgradeKeeper.ReadUpgradeInfoFromDisk()
	if err != nil {
		panic(err)
	}
	if info.Name == UpgradeName && !app.UpgradeKeeper.IsSkipHeight(info.Height) {
		app.SetStoreLoader(upgradetypes.UpgradeStoreLoader(info.Height, &storetypes.StoreUpgrades{Added: []string{epochstypes.StoreKey}}))
	}
}

// newApp and exportApp are the server's constructors, whose shape is this line's: they carry a trace writer
// (SDK v0.54 drops it).
func newApp(logger Logger, db dbm.DB, traceStore io.Writer, appOpts servertypes.AppOptions) servertypes.Application {
	return NewApp(logger, appOpts, func(b *runtime.AppBuilder) *runtime.App {
		return b.Build(db, traceStore, server.DefaultBaseappOptions(appOpts)...)
	})
}

func exportApp(Logger, dbm.DB, io.Writer, int64, bool, []string, servertypes.AppOptions, []string) (servertypes.ExportedApp, error) {
	return servertypes.ExportedApp{}, errNoExport
}
